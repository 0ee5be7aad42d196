package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// batchRequest is one line of `batch` input: the arguments of `schedule`.
type batchRequest struct {
	ID   string   `json:"id"`
	Args []string `json:"args"`
}

type batchResponse struct {
	ID     string          `json:"id"`
	Report json.RawMessage `json:"report,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// runBatchCommand is `kai-oracle batch`: one request a line on stdin, one response a line on
// stdout, in order, flushed after each. Each case gets fresh clients, cache and session (runCycle);
// process-wide KAI settings are reset before each (resetGlobals).
func runBatchCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	verbosity := 0
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--verbosity" && i+1 < len(args):
			fmt.Sscan(args[i+1], &verbosity)
			i++
		case strings.HasPrefix(args[i], "--verbosity="):
			fmt.Sscan(strings.TrimPrefix(args[i], "--verbosity="), &verbosity)
		default:
			fmt.Fprintf(stderr, "kai-oracle: error: batch: unknown argument %q\n", args[i])
			return exitUsage
		}
	}
	setupLogging(verbosity)
	out := bufio.NewWriter(stdout)
	in := bufio.NewReader(stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			writeResponse(out, handleRequest(line, stderr))
			if ferr := out.Flush(); ferr != nil {
				return exitBadInput
			}
		}
		if err == io.EOF {
			return exitOK
		}
		if err != nil {
			fmt.Fprintf(stderr, "kai-oracle: error: batch: %v\n", err)
			return exitBadInput
		}
	}
}

func handleRequest(line []byte, stderr io.Writer) (resp batchResponse) {
	var req batchRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return batchResponse{Error: fmt.Sprintf("bad request: %v", err)}
	}
	resp.ID = req.ID
	opts, err := parseScheduleArgs(req.Args)
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	// A KAI panic fails this case, not the batch.
	rep, _, err := runCaseRecovering(opts, strings.NewReader(""), prefixedWriter{stderr, req.ID})
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	text, err := marshalCompact(rep)
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	resp.Report = text
	return resp
}

func marshalCompact(r *report) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func writeResponse(out *bufio.Writer, resp batchResponse) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		fmt.Fprintf(out, "{\"id\":%q,\"error\":%q}\n", resp.ID, err.Error())
		return
	}
	out.Write(buf.Bytes())
}

// prefixedWriter writes a case's warnings to stderr under its id.
type prefixedWriter struct {
	w  io.Writer
	id string
}

func (p prefixedWriter) Write(b []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" {
			fmt.Fprintf(p.w, "[%s] %s", p.id, line)
		}
	}
	return len(b), nil
}
