package d_test

import (
	"testing"

	"example.com/chain/a"
	"example.com/chain/b"
)

func TestD(t *testing.T) {
	if b.Double(1)+a.Scale(3) != 8 {
		t.Fatal("d")
	}
}
