package proxmox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvehttp"
)

// isoNodes lists the nodes whose ISOStorage an image goes to: one for a shared
// storage, every online node that has it otherwise (a machine mounts what its own
// node's storage holds).
func (d *Driver) isoNodes(ctx context.Context) ([]string, error) {
	view, err := d.resources(ctx)
	if err != nil {
		return nil, err
	}
	nodes := view.storageNodes(d.cfg.ISOStorage)
	if len(nodes) == 0 && len(view.storages) == 0 {
		for _, n := range view.sortedNodes() { // a token without Datastore.Audit sees no storages
			if view.online(n) {
				nodes = append(nodes, n)
			}
		}
	}
	if len(nodes) == 0 {
		return nil, hypervisor.NewError(hypervisor.ErrUnavailable, "ISOStorage %q is on no online node", d.cfg.ISOStorage)
	}
	if view.shared(d.cfg.ISOStorage) {
		nodes = nodes[:1]
	}
	return nodes, nil
}

func storagePath(node, storage string) string {
	return "/nodes/" + url.PathEscape(node) + "/storage/" + url.PathEscape(storage)
}

// ImportISO has Proxmox fetch the image (download-url, content iso) into ISOStorage
// on each node that needs it, and verify it against the checksum: a mismatch fails
// Proxmox's task, which removes what it fetched. Proxmox reports no size here: 0.
// A spec with a File and no URL (an image uploaded to vmplane) is sent to Proxmox
// instead (uploadISO).
func (d *Driver) ImportISO(ctx context.Context, spec hypervisor.ISOSpec) (hypervisor.ISO, error) {
	if err := hypervisor.CheckISOName(spec.Name); err != nil {
		return hypervisor.ISO{}, err
	}
	algo, digest, err := hypervisor.ParseChecksum(spec.Checksum)
	if err != nil {
		return hypervisor.ISO{}, err
	}
	if spec.URL == "" && spec.File != "" {
		return d.uploadISO(ctx, spec, algo, digest)
	}
	if u, err := url.Parse(spec.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return hypervisor.ISO{}, invalid("url", "must be an http or https URL")
	}
	nodes, err := d.isoNodes(ctx)
	if err != nil {
		return hypervisor.ISO{}, err
	}
	for _, n := range nodes {
		body := map[string]any{"url": spec.URL, "filename": spec.Name, "content": "iso", "checksum": digest, "checksum-algorithm": algo}
		err := d.startTask(ctx, http.MethodPost, n, storagePath(n, d.cfg.ISOStorage)+"/download-url", body, "fetch ISO "+spec.Name)
		if errors.Is(err, hypervisor.ErrTaskFailed) && checksumMessage.MatchString(err.Error()) {
			return hypervisor.ISO{}, hypervisor.NewError(hypervisor.ErrChecksumMismatch, "%s: %s", spec.Name, err.Error())
		}
		if err != nil {
			return hypervisor.ISO{}, err
		}
	}
	return hypervisor.ISO{Name: spec.Name, Checksum: algo + ":" + digest}, nil
}

// uploadISO sends vmplane's file of an image to ISOStorage on each node that needs
// it (POST .../upload, multipart, content iso, with the checksum that Proxmox's
// imgcopy task verifies before it keeps the file). The file is streamed, never read
// whole, and the request has no timeout of its own: its time grows with the file, and
// ctx bounds it.
func (d *Driver) uploadISO(ctx context.Context, spec hypervisor.ISOSpec, algo, digest string) (hypervisor.ISO, error) {
	f, err := os.Open(spec.File)
	if err != nil {
		return hypervisor.ISO{}, invalid("file", "cannot open: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return hypervisor.ISO{}, invalid("file", "cannot read: %v", err)
	}
	nodes, err := d.isoNodes(ctx)
	if err != nil {
		return hypervisor.ISO{}, err
	}
	for _, n := range nodes {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return hypervisor.ISO{}, err
		}
		fields := map[string]string{"content": "iso", "checksum": digest, "checksum-algorithm": algo}
		var upid string
		err := d.apiError(ctx, d.postFile(ctx, storagePath(n, d.cfg.ISOStorage)+"/upload", fields, spec.Name, f, fi.Size(), &upid))
		if err == nil {
			err = d.waitTask(ctx, n, upid, "upload ISO "+spec.Name)
		}
		if errors.Is(err, hypervisor.ErrTaskFailed) && checksumMessage.MatchString(err.Error()) {
			return hypervisor.ISO{}, hypervisor.NewError(hypervisor.ErrChecksumMismatch, "%s: %s", spec.Name, err.Error())
		}
		if err != nil {
			return hypervisor.ISO{}, err
		}
	}
	return hypervisor.ISO{Name: spec.Name, SizeBytes: fi.Size(), Checksum: algo + ":" + digest}, nil
}

// postFile POSTs a multipart form to path: the fields first, then body (size bytes)
// as the file part "filename" named filename, as pveproxy takes an upload; the
// answer's data goes into out. The form is streamed (its head and tail are small),
// with the token header go-proxmox's client would add.
func (d *Driver) postFile(ctx context.Context, path string, fields map[string]string, filename string, body io.Reader, size int64, out any) error {
	var head bytes.Buffer
	w := multipart.NewWriter(&head)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if err := w.WriteField(k, fields[k]); err != nil {
			return err
		}
	}
	if _, err := w.CreateFormFile("filename", filename); err != nil {
		return err
	}
	n := head.Len()
	if err := w.Close(); err != nil {
		return err
	}
	form := head.Bytes()
	req, err := http.NewRequestWithContext(pvehttp.WithoutTimeout(ctx), http.MethodPost, d.base.String()+path,
		io.MultiReader(bytes.NewReader(form[:n]), io.LimitReader(body, size), bytes.NewReader(form[n:])))
	if err != nil {
		return err
	}
	req.ContentLength = int64(len(form)) + size
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "vmplane-proxmox")
	req.Header.Set("Authorization", "PVEAPIToken="+d.cfg.TokenID+"="+d.cfg.TokenSecret)
	resp, err := d.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(&struct {
		Data any `json:"data"`
	}{Data: out})
}

// DeleteISO removes the image from ISOStorage on each node that has it.
func (d *Driver) DeleteISO(ctx context.Context, name string) error {
	nodes, err := d.isoNodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		vol := d.cfg.ISOStorage + ":iso/" + name
		err := d.startTask(ctx, http.MethodDelete, n, storagePath(n, d.cfg.ISOStorage)+"/content/"+url.PathEscape(vol), nil, "delete ISO "+name)
		if err != nil && !volumeMissingMessage.MatchString(err.Error()) {
			return err
		}
	}
	return nil
}

// MountISO puts ISOStorage's image into the machine's CD-ROM drive (pveconf.CDROMSlot).
func (d *Driver) MountISO(ctx context.Context, ref hypervisor.Ref, name string) (hypervisor.Machine, error) {
	if err := hypervisor.CheckISOName(name); err != nil {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrISONotFound, "no ISO %q", name)
	}
	hm, err := d.setDrive(ctx, ref, "mount ISO "+name, d.cfg.ISOStorage+":iso/"+name+",media=cdrom", nil)
	if err != nil && volumeMissingMessage.MatchString(err.Error()) {
		return hm, hypervisor.NewError(hypervisor.ErrISONotFound, "no ISO %q on storage %s of node %s", name, d.cfg.ISOStorage, ref.Node)
	}
	return hm, err
}

// EjectISO empties the machine's CD-ROM drive ("none,media=cdrom").
func (d *Driver) EjectISO(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	return d.setDrive(ctx, ref, "eject ISO", "none,media=cdrom", nil)
}

// SetBootOrder writes "boot: order=" with the machine's own devices: cdrom its CD-ROM
// drive (an empty one is added when it has none), disk its system disk, net its
// first interface.
func (d *Driver) SetBootOrder(ctx context.Context, ref hypervisor.Ref, order []string) (hypervisor.Machine, error) {
	if err := hypervisor.CheckBootOrder(order); err != nil {
		return hypervisor.Machine{}, err
	}
	return d.setDrive(ctx, ref, "set boot order", "", func(cfg pveconf.VM, slot string, body map[string]any) error {
		var keys []string
		for _, dev := range order {
			switch dev {
			case hypervisor.BootCDROM:
				keys = append(keys, slot)
			case hypervisor.BootDisk:
				disk, ok := cfg.BootDisk()
				if !ok {
					return invalid("order", "machine %d has no disk", ref.VMID)
				}
				keys = append(keys, disk.Key)
			case hypervisor.BootNet:
				nics := cfg.NICs()
				if len(nics) == 0 {
					return invalid("order", "machine %d has no network interface", ref.VMID)
				}
				keys = append(keys, nics[0].Key)
			}
		}
		body["boot"] = "order=" + strings.Join(keys, ";")
		return nil
	})
}

// setDrive is a config change of the CD-ROM drive: drive, when set, is its new value;
// more adds to the body. A machine without a drive gets an empty one in pveconf.CDROMSlot.
func (d *Driver) setDrive(ctx context.Context, ref hypervisor.Ref, what, drive string, more func(pveconf.VM, string, map[string]any) error) (hypervisor.Machine, error) {
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	err = d.updateConfig(ctx, l, what, func(cfg pveconf.VM) (map[string]any, error) {
		slot := pveconf.CDROMSlot(cfg)
		if slot == "" {
			return nil, invalid("media", "machine %d has no free IDE slot for a CD-ROM drive", ref.VMID)
		}
		body := map[string]any{}
		if drive != "" {
			body[slot] = drive
		} else if _, ok := cfg[slot]; !ok {
			body[slot] = "none,media=cdrom"
		}
		if more != nil {
			if err := more(cfg, slot, body); err != nil {
				return nil, err
			}
		}
		return body, nil
	})
	if err != nil {
		return hypervisor.Machine{}, err
	}
	return d.readMachine(ctx, l)
}
