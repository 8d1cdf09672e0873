// Package lazy holds package-level values built on first use. Unlike
// sync.OnceValue, a call that allocates while the program starts, a
// Value made by Of from a named function is laid out by the compiler in
// the binary's data: starting the binary costs nothing until Get.
package lazy

import "sync"

// Value is a T built once, on the first Get.
type Value[T any] struct {
	once  sync.Once
	build func() T
	valid bool
	p     any
	v     T
}

// Of returns a Value that build makes on first use. build should be a
// named function (a function literal defeats the static layout).
func Of[T any](build func() T) *Value[T] { return &Value[T]{build: build} }

// Get returns the value, building it the first time. If build panics,
// Get panics with the same value now and on every later call, as
// sync.OnceValue does.
func (l *Value[T]) Get() T {
	l.once.Do(func() {
		defer func() {
			l.p = recover()
			if !l.valid {
				panic(l.p)
			}
		}()
		l.v = l.build()
		l.build = nil
		l.valid = true
	})
	if !l.valid {
		panic(l.p)
	}
	return l.v
}
