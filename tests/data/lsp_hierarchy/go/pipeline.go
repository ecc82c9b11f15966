package hierarchy

import "fmt"

// StepB doubles Helper's result.
func StepB(value int) int {
	return Helper(value) * 2
}

// RunAll runs both steps.
func RunAll(value int) int {
	total := StepA(value) + StepB(value)
	fmt.Println(total)
	return total
}

// MainEntry starts everything.
func MainEntry() {
	RunAll(3)
}
