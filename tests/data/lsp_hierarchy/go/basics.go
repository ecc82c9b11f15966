package hierarchy

// Helper adds one.
func Helper(value int) int {
	return value + 1
}

// StepA applies Helper twice.
func StepA(value int) int {
	first := Helper(value)
	return Helper(first)
}

// Countdown recurses to zero.
func Countdown(n int) int {
	if n <= 0 {
		return 0
	}
	return Countdown(n - 1)
}
