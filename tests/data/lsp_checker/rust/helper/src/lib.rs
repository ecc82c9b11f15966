//! Fixture for the project checker: compiles, with one warning (an unused variable).

pub fn seven() -> i32 {
    let unused = 7;
    7
}

/// Eight.
///
/// ```
/// assert_eq!(helper::eight(), 8);
/// ```
pub fn eight() -> i32 {
    8
}
