// Command specdump starts a vmplane server in-process on loopback over a throwaway store
// and writes the OpenAPI document it serves at GET /api/openapi.json to the file named by
// its argument: the document the generated client is built from (`make client`).
package main

import (
	"fmt"
	"os"

	"github.com/vmplane/vmplane/clientcheck/internal/testserver"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: specdump FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "specdump:", err)
		os.Exit(1)
	}
}

func run(file string) error {
	dir, err := os.MkdirTemp("", "vmplane-specdump-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := testserver.Start(dir)
	if err != nil {
		return err
	}
	defer srv.Stop()
	doc, err := srv.Document()
	if err != nil {
		return err
	}
	return os.WriteFile(file, doc, 0o644)
}
