// Command mcpserver is a small MCP server on the official Go SDK, over
// stdio, for the tests of ctx record --mcp and ctx serve --mcp (never
// linked into ctx). Its tools cover what a recording must keep: plain and
// structured results, isError results, JSON-RPC errors, state across
// calls, large results and a crash mid-session.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArgs struct {
	Text string `json:"text"`
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type sum struct {
	Sum float64 `json:"sum"`
}

type sizeArgs struct {
	Bytes int `json:"bytes"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	var counter atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "ctx-test-server", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: "a server for ctx's tests"})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "returns its text"},
		func(_ context.Context, _ *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			return text(a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds two numbers"},
		func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, sum, error) {
			return nil, sum{a.A + a.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "a tool error (isError)"},
		func(_ context.Context, _ *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("failed: %s", a.Text)
		})
	s.AddTool(&mcp.Tool{Name: "rpcerror", Description: "a JSON-RPC error", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32042, Message: "the server refused"}
		})
	s.AddTool(&mcp.Tool{Name: "counter", Description: "counts its calls", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprint(counter.Add(1))), nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "a result of the given size"},
		func(_ context.Context, _ *mcp.CallToolRequest, a sizeArgs) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", a.Bytes)), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "exits in the middle of the call", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}
