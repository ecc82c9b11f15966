package lib

// Answer returns 42; the statement after the return is never reached.
func Answer() int {
	return 42
	println("never")
	return 0
}
