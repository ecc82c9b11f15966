package calc

import "testing"

func TestTotal(t *testing.T) {
	numbers := []int{1, 2, 3}
	expected := 6
	if got := Total(numbers); got != expected {
		t.Fatalf("Total(%v) = %d, want %d", numbers, got, expected)
	}
}

func TestMean(t *testing.T) {
	sample := []int{2, 4}
	if got := Mean(sample); got != 3 {
		t.Fatalf("Mean = %d", got)
	}
}

func TestEmpty(t *testing.T) {
	if Total(nil) != 0 {
		t.Fatal("empty")
	}
}
