pub fn helper(value: i32) -> i32 {
    value + 1
}

pub fn step_a(value: i32) -> i32 {
    let first = helper(value);
    helper(first)
}

pub fn countdown(n: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    countdown(n - 1)
}
