package pvefake

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// isoFile is an image on a storage's iso content (node "" on a shared storage).
type isoFile struct {
	volid, storage, node string
	size                 int64
	ctime                time.Time
}

// maxISOBytes bounds what the fake fetches: its images are test fixtures.
const maxISOBytes = 64 << 20

// isoFilename is what download-url keeps of a file name for content iso (Proxmox
// normalises other characters away; a test sees the same name back).
var isoFilename = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\.(iso|img)$`)

// checksumHashes are download-url's checksum-algorithm values.
var checksumHashes = map[string]func() hash.Hash{"md5": md5.New, "sha1": sha1.New, "sha224": sha256.New224,
	"sha256": sha256.New, "sha384": sha512.New384, "sha512": sha512.New}

// downloadURL is POST /nodes/{node}/storage/{storage}/download-url: the file is
// fetched, checked against its checksum and stored as <storage>:iso/<filename> by a
// task; a checksum mismatch fails the task ("checksum mismatch: got ... != expect
// ..."), leaving nothing behind, as Proxmox's download_file_from_url does. The fake
// fetches when the call arrives (the task only reports it).
func (c *call) downloadURL() {
	s := c.s
	stName, nodeName := c.p["storage"], c.p["node"]
	st := c.isoStorage("downloads")
	if st == nil {
		return
	}
	name, sum, algo := c.form.Get("filename"), strings.ToLower(c.form.Get("checksum")), c.form.Get("checksum-algorithm")
	if !isoFilename.MatchString(name) {
		c.fail(500, "invalid filename or wrong extension")
		return
	}
	newHash, known := checksumHashes[algo]
	if (sum == "") != (algo == "") || (algo != "" && !known) {
		c.paramErr("checksum-algorithm", "'checksum' and 'checksum-algorithm' must be given together")
		return
	}
	if !strings.HasPrefix(c.form.Get("url"), "http://") && !strings.HasPrefix(c.form.Get("url"), "https://") {
		c.paramErr("url", "value does not match the regex pattern")
		return
	}
	got, size, ferr := fetchISO(c.form.Get("url"), newHash)
	volid := stName + ":iso/" + name
	c.task("download", stName, func() string {
		switch {
		case ferr != nil:
			return "download failed: " + ferr.Error()
		case sum != "" && got != sum:
			return "checksum mismatch: got '" + got + "' != expect '" + sum + "'"
		}
		f := &isoFile{volid: volid, storage: stName, size: size, ctime: s.cfg.Now().UTC()}
		if !st.shared {
			f.node = nodeName
		}
		s.isos[s.isoKey(f.volid, f.node)] = f
		return "OK"
	}, nil)
}

// isoKey keys an image by volid and node: a local storage holds one per node.
func (s *Server) isoKey(volid, node string) string { return volid + "@" + node }

// fetchISO GETs url and hashes its body (sha256 when no algorithm is given).
func fetchISO(url string, newHash func() hash.Hash) (digest string, size int64, err error) {
	if newHash == nil {
		newHash = sha256.New
	}
	cl := &http.Client{Timeout: 30 * time.Second}
	resp, err := cl.Get(url)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", 0, &httpStatus{resp.Status}
	}
	h := newHash()
	size, err = io.Copy(h, io.LimitReader(resp.Body, maxISOBytes))
	return hex.EncodeToString(h.Sum(nil)), size, err
}

type httpStatus struct{ status string }

func (e *httpStatus) Error() string { return "server answered " + e.status }

// isoLocked finds an image on a node's view of a storage.
func (s *Server) isoLocked(volid, node string) *isoFile {
	if f, ok := s.isos[s.isoKey(volid, "")]; ok {
		return f
	}
	return s.isos[s.isoKey(volid, node)]
}

// isoContent lists the images of a node's view of a storage (content=iso).
func (s *Server) isoContent(storage, node string) []map[string]any {
	out := []map[string]any{}
	for _, f := range s.isos {
		if f.storage == storage && (f.node == "" || f.node == node) {
			out = append(out, map[string]any{"volid": f.volid, "content": "iso", "format": "iso", "size": f.size, "ctime": f.ctime.Unix()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["volid"].(string) < out[j]["volid"].(string) })
	return out
}

// uploadedFile is the file part of a multipart upload: its size and its digest under
// every checksum algorithm upload takes (the algorithm may come after the file).
type uploadedFile struct {
	size    int64
	digests map[string]string
}

// parseMultipart reads a multipart/form-data body as pveproxy does for an upload:
// the fields become parameters, and the file part (form name "filename") gives the
// file name parameter and is streamed through the hashes, never held whole (pveproxy
// spools it to /var/tmp/pveupload-*).
func (c *call) parseMultipart() error {
	mr, err := c.r.MultipartReader()
	if err != nil {
		return err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if part.FileName() == "" {
			v, err := io.ReadAll(io.LimitReader(part, 64<<10))
			if err != nil {
				return err
			}
			c.form.Set(part.FormName(), string(v))
			continue
		}
		c.form.Set(part.FormName(), part.FileName())
		hashes := map[string]hash.Hash{}
		var ws []io.Writer
		for name, h := range checksumHashes {
			hashes[name] = h()
			ws = append(ws, hashes[name])
		}
		n, err := io.Copy(io.MultiWriter(ws...), io.LimitReader(part, maxISOBytes+1))
		if err != nil {
			return err
		}
		if n > maxISOBytes {
			return errors.New("file too large for the fake")
		}
		f := &uploadedFile{size: n, digests: map[string]string{}}
		for name, h := range hashes {
			f.digests[name] = hex.EncodeToString(h.Sum(nil))
		}
		c.uploaded = f
	}
}

// isoStorage is the storage an ISO is downloaded or uploaded to (what names the
// call's verb), checked as Proxmox does: on the node, and taking ISO images; nil,
// answered, when it is not.
func (c *call) isoStorage(verb string) *storage {
	stName, nodeName := c.p["storage"], c.p["node"]
	st := c.s.storageLocked(stName)
	if st == nil || !st.on(nodeName) {
		c.fail(500, "storage '%s' does not exist", stName)
		return nil
	}
	if c.form.Get("content") != "iso" {
		c.paramErr("content", "this fake %s content iso only", verb)
		return nil
	}
	if !strings.Contains(st.content, "iso") {
		c.fail(500, "storage '%s' does not support content-type 'iso'", stName)
		return nil
	}
	return st
}

// upload is POST /nodes/{node}/storage/{storage}/upload: the multipart file is
// stored as <storage>:iso/<filename> by a task (imgcopy) that first checks the
// checksum when one is given; a mismatch fails the task ("checksum mismatch: got ...
// != expect ..."), leaving nothing behind, as pve-storage's upload does. Its checks
// are Proxmox's: the storage must be on the node and take the content, an ISO's
// file name must end in .iso or .img ("wrong file extension"), checksum and
// checksum-algorithm come together.
func (c *call) upload() {
	s := c.s
	stName, nodeName := c.p["storage"], c.p["node"]
	st := c.isoStorage("uploads")
	if st == nil {
		return
	}
	name, sum, algo := c.form.Get("filename"), strings.ToLower(c.form.Get("checksum")), c.form.Get("checksum-algorithm")
	if !isoFilename.MatchString(name) {
		c.paramErr("filename", "wrong file extension")
		return
	}
	if (sum == "") != (algo == "") {
		c.paramErr("checksum-algorithm", "'checksum' and 'checksum-algorithm' must be given together")
		return
	}
	if c.uploaded == nil {
		c.fail(400, "missing file upload")
		return
	}
	up := c.uploaded
	volid := stName + ":iso/" + name
	c.task("imgcopy", stName, func() string {
		if got := up.digests[algo]; sum != "" && got != sum {
			return "checksum mismatch: got '" + got + "' != expect '" + sum + "'"
		}
		f := &isoFile{volid: volid, storage: stName, size: up.size, ctime: s.cfg.Now().UTC()}
		if !st.shared {
			f.node = nodeName
		}
		s.isos[s.isoKey(f.volid, f.node)] = f
		return "OK"
	}, nil)
}
