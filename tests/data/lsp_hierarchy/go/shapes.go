package hierarchy

// Shape has an area.
type Shape interface {
	Area() float64
}

// Polygon is a shape with sides.
type Polygon interface {
	Shape
	Sides() int
}

// Square is a polygon.
type Square struct {
	Side float64
}

// Area of the square.
func (s Square) Area() float64 {
	return s.Side * s.Side
}

// Sides of the square.
func (s Square) Sides() int {
	return 4
}

// Circle is a shape.
type Circle struct {
	Radius float64
}

// Area of the circle.
func (c Circle) Area() float64 {
	return 3.14 * c.Radius * c.Radius
}
