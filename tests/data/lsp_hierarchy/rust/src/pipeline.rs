use crate::basics::{helper, step_a};

pub fn step_b(value: i32) -> i32 {
    helper(value) * 2
}

pub fn run_all(value: i32) -> i32 {
    let total = step_a(value) + step_b(value);
    println!("{total}");
    total.max(0)
}

pub fn main_entry() {
    run_all(3);
}
