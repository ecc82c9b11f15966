pub mod shapes;

/// Doubles a number.
pub fn double(value: i32) -> i32 {
    value * 2
}

pub fn apply(value: i32) -> i32 {
    // double is applied twice below
    let é = "😀"; let twice = double(double(value));
    twice + é.len() as i32
}
