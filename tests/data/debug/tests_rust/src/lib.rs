//! Shapes and their areas: the debug tests stop inside `area` while a test runs.
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Circle { radius: f64 },
    Rect(u32, u32),
    Empty,
}

#[derive(Debug)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

pub fn area(shape: &Shape) -> f64 {
    match shape {
        Shape::Circle { radius } => 3.0 * radius * radius,
        Shape::Rect(w, h) => (*w * *h) as f64,
        Shape::Empty => 0.0,
    }
}

pub fn total(shapes: &[Shape]) -> f64 {
    let mut sum = 0.0;
    for shape in shapes {
        sum += area(shape);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_shapes() {
        let shapes = vec![Shape::Circle { radius: 1.0 }, Shape::Rect(2, 3), Shape::Empty];
        let name = String::from("shapes");
        let maybe: Option<i32> = Some(7);
        let origin = Point { x: 1, y: 2 };
        let mut counts = HashMap::new();
        counts.insert("rects", 1);
        let (byte, offset, letter, bytes, size): (u8, i8, char, [u8; 3], usize) = (200, -3, 'z', [1, 2, 200], 13);
        let sum = total(&shapes);
        assert_eq!(sum, 9.0, "{name} {maybe:?} {origin:?} {counts:?} {byte} {offset} {letter} {bytes:?} {size}");
    }

    #[test]
    fn empty_has_no_area() {
        assert_eq!(area(&Shape::Empty), 0.0);
    }

    #[test]
    fn rect_area() {
        assert_eq!(area(&Shape::Rect(4, 5)), 20.0);
    }
}
