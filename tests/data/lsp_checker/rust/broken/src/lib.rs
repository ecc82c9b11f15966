//! Fixture for the project checker: two type errors (E0308) after a dependency with a warning.

pub fn count() -> i32 {
    "seven"
}

pub fn total() -> u8 {
    helper::seven()
}
