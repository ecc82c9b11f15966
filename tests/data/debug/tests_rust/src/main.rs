//! The crate's bin target: `debug launch {program: "src/main.rs"}` builds it with cargo.
fn main() {
    let shapes = vec![shapes::Shape::Rect(2, 3), shapes::Shape::Empty];
    let sum = shapes::total(&shapes);
    println!("sum={sum}");
}
