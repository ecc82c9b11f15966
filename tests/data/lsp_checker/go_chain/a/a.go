package a

// Scale doubles x.
func Scale(x int) int { return x * 2 }
