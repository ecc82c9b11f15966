// Fixture for tests/debug.rs: breakpoints, steps and variables at known lines.
package main

import (
	"fmt"
	"os"
)

func add(a, b int) int {
	total := a + b
	return total
}

func main() {
	numbers := []int{1, 2, 3}
	label := "sum"
	result := add(numbers[0], numbers[2])
	fmt.Printf("%s=%d\n", label, result)
	os.Exit(result)
}
