package fixture

// Apply uses Double twice.
func Apply(value int) int {
	// Double is applied twice below
	é := "😀"; twice := Double(Double(value))
	return twice + len(é)
}

// Make returns a square.
func Make() Shape {
	square := Square{Side: 1}
	return square
}
