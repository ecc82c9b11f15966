package calc

// Total adds the values; the debug tests stop inside it while a test runs.
func Total(values []int) int {
	result := 0
	for _, value := range values {
		result += value
	}
	return result
}

// Mean is the average of the values.
func Mean(values []int) int {
	return Total(values) / len(values)
}
