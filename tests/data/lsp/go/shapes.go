package fixture

// Shape has an area.
type Shape interface {
	Area() float64
}

// Square is a shape.
type Square struct {
	Side float64
}

// Area of the square.
func (s Square) Area() float64 {
	return s.Side * s.Side
}

// Double doubles a number.
func Double(value int) int {
	return value * 2
}
