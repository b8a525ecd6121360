// Package lines runs an oracle over JSON lines: one case per line on stdin, one answer per
// line on stdout, in order, so that one process answers a whole test run. An answer is
// written out as soon as no further case is waiting, so a caller may also send one case and
// wait for its answer.
package lines

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Version is stamped at build time by scripts/install-tools: a digest of this module's
// sources, go.mod and go.sum, so an outdated binary is rebuilt.
var Version = "dev"

// Answer is what an oracle says about one case: Flux's result, or the error Flux's code
// returned. Panic is set when Flux's code panicked (the controller turns that into a failed
// reconciliation, so the caller counts it as an error).
type Answer struct {
	Result any    `json:"result"`
	Error  string `json:"error,omitempty"`
	Panic  bool   `json:"panic,omitempty"`
}

// Main serves `--version`, or answers each line of stdin with handle's answer.
func Main(handle func(line []byte) Answer) {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println(Version)
		return
	}
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: reads JSON-lines cases on stdin, writes one JSON answer per line")
		os.Exit(2)
	}
	if err := serve(os.Stdin, os.Stdout, handle); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func serve(in io.Reader, out io.Writer, handle func(line []byte) Answer) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriterSize(out, 1<<20)
	encoder := json.NewEncoder(writer)
	encoder.SetEscapeHTML(false)
	for {
		line, err := reader.ReadBytes('\n')
		if len(line) > 0 {
			if err := encoder.Encode(guarded(handle, line)); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return writer.Flush()
		}
		if err != nil {
			return err
		}
		if reader.Buffered() == 0 {
			if err := writer.Flush(); err != nil {
				return err
			}
		}
	}
}

// guarded keeps one case's panic from ending the process, as controller-runtime's recovery
// keeps it from ending the controller.
func guarded(handle func(line []byte) Answer, line []byte) (answer Answer) {
	defer func() {
		if p := recover(); p != nil {
			answer = Answer{Error: fmt.Sprint(p), Panic: true}
		}
	}()
	return handle(line)
}
