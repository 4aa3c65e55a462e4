// Package webui serves the web console's built files (package ui) at the root of the
// API's listener: the hashed assets, cached for ever, and index.html for every other
// path a browser opens (the console's routes are client-side), under a
// Content-Security-Policy that lets the page run its own files only.
package webui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"path"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
)

// CSP is the console's Content-Security-Policy: scripts, styles and connections of
// this origin only (no inline script or style, no eval), never framed. 'self' in
// connect-src covers ws: and wss: to this host too (CSP level 3), for the consoles.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// AssetsDir is the folder of the hashed files: a name there changes with its content.
const AssetsDir = "assets/"

// file is one built file, ready to answer: its bytes, and gzipped on the first request
// that accepts gzip. Not at start: the whole console at the best level is some 50 ms of
// CPU on a small machine (seconds under the race detector, which the tests start
// hundreds of servers under), for files most processes never serve.
type file struct {
	body  []byte
	ctype string
	etag  string
	// immutable: a hashed asset, which never changes under its name.
	immutable bool

	gzOnce sync.Once
	gz     []byte // nil when gzip would not make it smaller
}

// gzipped is the file's gzip encoding, nil when that is not smaller than the file.
func (f *file) gzipped() []byte {
	f.gzOnce.Do(func() {
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		_, _ = w.Write(f.body)
		_ = w.Close()
		if z.Len() < len(f.body) {
			f.gz = z.Bytes()
		}
	})
	return f.gz
}

// Console answers the console's files.
type Console struct {
	files map[string]*file
	index *file
}

// New reads every file of fsys (index.html at its root).
func New(fsys fs.FS) (*Console, error) {
	c := &Console{files: map[string]*file{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		f := &file{body: b, ctype: mime.TypeByExtension(path.Ext(p)), immutable: strings.HasPrefix(p, AssetsDir)}
		if f.ctype == "" {
			f.ctype = "application/octet-stream"
		}
		sum := sha256.Sum256(b)
		f.etag = `"` + hex.EncodeToString(sum[:8]) + `"`
		c.files[p] = f
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.index = c.files["index.html"]; c.index == nil {
		return nil, fs.ErrNotExist
	}
	return c, nil
}

// Serve answers a GET or HEAD of a path outside the API: the file of that name, a
// 404 for an asset that is not there (a stale page asking for an old chunk should
// fail, not get HTML), and index.html for any other path.
func (c *Console) Serve(rc *fasthttp.RequestCtx) {
	h := &rc.Response.Header
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	name := strings.TrimPrefix(string(rc.Path()), "/")
	f := c.files[name]
	if f == nil {
		if strings.HasPrefix(name, AssetsDir) {
			h.Set("Cache-Control", "no-cache")
			rc.SetContentType("text/plain; charset=utf-8")
			rc.SetStatusCode(fasthttp.StatusNotFound)
			rc.SetBodyString("404 not found: no such file of the console (reload the page)\n")
			return
		}
		f = c.index
	}
	if f.immutable {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("ETag", f.etag)
	h.Set("Vary", "Accept-Encoding")
	if string(rc.Request.Header.Peek("If-None-Match")) == f.etag {
		rc.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	rc.SetContentType(f.ctype)
	if rc.Request.Header.HasAcceptEncoding("gzip") {
		if gz := f.gzipped(); gz != nil {
			h.Set("Content-Encoding", "gzip")
			rc.SetBody(gz)
			return
		}
	}
	rc.SetBody(f.body)
}
