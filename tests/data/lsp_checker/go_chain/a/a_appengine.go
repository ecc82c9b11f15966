//go:build appengine
// +build appengine

package a

// Platform is built only with the appengine tag; its error is never compiled without it.
func Platform() string { return 1 }
