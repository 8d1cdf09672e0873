package cli

import (
	"bufio"
	"context"
	"io"
)

// lineReader reads stdin on one goroutine, so the chat prompt and an
// approval or clarify question can share it.
type lineReader struct {
	lines  chan string
	err    error
	prompt io.Writer
}

func newLineReader(r io.Reader, prompt io.Writer) *lineReader {
	lr := &lineReader{lines: make(chan string), prompt: prompt}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lr.lines <- sc.Text()
		}
		lr.err = sc.Err()
		close(lr.lines)
	}()
	return lr
}

// read returns the next line; io.EOF at the end of input.
func (lr *lineReader) read(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-lr.lines:
		if !ok {
			if lr.err != nil {
				return "", lr.err
			}
			return "", io.EOF
		}
		return l, nil
	}
}
