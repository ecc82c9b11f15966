package main

// helper lives in another file of the package: building main.go alone would fail.
func helper(x int) int {
	return x * factor
}

const factor = 2
