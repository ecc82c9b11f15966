package c

import (
	"testing"

	"example.com/chain/a"
)

func TestQuad(t *testing.T) {
	if Quad(1) != a.Scale(2) {
		t.Fatal("quad")
	}
}
