package pveconf

import (
	"reflect"
	"slices"
	"testing"
)

func TestParseNet(t *testing.T) {
	f := func(in, mac, model, bridge, tag, rate, out string) {
		t.Helper()
		n := ParseNet(in)
		if n.MAC != mac || n.Model != model || n.Get("bridge") != bridge || n.Get("tag") != tag || n.Get("rate") != rate {
			t.Errorf("ParseNet(%q): got model %q mac %q bridge %q tag %q rate %q; want %q %q %q %q %q",
				in, n.Model, n.MAC, n.Get("bridge"), n.Get("tag"), n.Get("rate"), model, mac, bridge, tag, rate)
		}
		if got := n.String(); got != out {
			t.Errorf("ParseNet(%q).String(): got %q; want %q", in, got, out)
		}
	}
	f("virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=10,firewall=1,rate=12.5", "BC:24:11:AA:BB:CC", "virtio", "vmbr0", "10", "12.5",
		"virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=10,firewall=1,rate=12.5")
	f("model=e1000,macaddr=BC:24:11:00:00:01,bridge=vmbr1", "BC:24:11:00:00:01", "e1000", "vmbr1", "", "",
		"e1000=BC:24:11:00:00:01,bridge=vmbr1")
	f("virtio,bridge=vmbr0", "", "virtio", "vmbr0", "", "", "virtio,bridge=vmbr0")
	f("vmxnet3=BC:24:11:00:00:02,bridge=vmbr0,mtu=9000,queues=2,link_down=1", "BC:24:11:00:00:02", "vmxnet3", "vmbr0", "", "",
		"vmxnet3=BC:24:11:00:00:02,bridge=vmbr0,mtu=9000,queues=2,link_down=1")

	n := ParseNet("virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=10")
	n.Set("tag", "")
	n.Set("rate", "25")
	n.Set("bridge", "vmbr2")
	if got := n.String(); got != "virtio=BC:24:11:AA:BB:CC,bridge=vmbr2,rate=25" {
		t.Errorf("edited net: got %q", got)
	}
}

func TestRateConversion(t *testing.T) {
	f := func(mbps int, mbytes string) {
		t.Helper()
		if got := RateMBps(mbps); got != mbytes {
			t.Errorf("RateMBps(%d): got %q; want %q", mbps, got, mbytes)
		}
		if mbytes != "" {
			if got := RateMbps(mbytes); got != mbps {
				t.Errorf("RateMbps(%q): got %d; want %d", mbytes, got, mbps)
			}
		}
	}
	f(100, "12.5")
	f(1000, "125")
	f(1, "0.125")
	f(0, "")
	if got := RateMbps("garbage"); got != 0 {
		t.Errorf("RateMbps(garbage): got %d; want 0", got)
	}
}

func TestParseSizeGB(t *testing.T) {
	f := func(in string, want int) {
		t.Helper()
		if got := ParseSizeGB(in); got != want {
			t.Errorf("ParseSizeGB(%q): got %d; want %d", in, got, want)
		}
	}
	f("32G", 32)
	f("512M", 1)
	f("2048M", 2)
	f("1T", 1024)
	f("1.5G", 2)
	f("10737418240", 10)
	f("4194304K", 4)
	f("", 0)
	f("x", 0)
}

func TestConfigParsing(t *testing.T) {
	cfg := FromJSON(map[string]any{
		"name": "web", "cores": float64(2), "sockets": float64(2), "memory": "current=4096",
		"scsi0":     "local-lvm:vm-100-disk-0,size=32G",
		"scsi1":     "cephpool:vm-100-disk-1,iothread=1,size=100G",
		"virtio0":   "local-lvm:vm-100-disk-2,size=8G",
		"ide2":      "local-lvm:vm-100-cloudinit,media=cdrom",
		"sata0":     "none,media=cdrom",
		"net0":      "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0",
		"ipconfig0": "ip=10.0.0.5/24,gw=10.0.0.1",
		"tags":      "a;vmplane-tpl-9001",
		"template":  nil,
	})
	if cfg.CPUCores() != 4 || cfg.MemoryMB() != 4096 {
		t.Errorf("cores/memory: got %d/%d; want 4/4096", cfg.CPUCores(), cfg.MemoryMB())
	}
	var keys []string
	for _, d := range cfg.Disks() {
		keys = append(keys, d.Key)
	}
	if want := []string{"scsi0", "scsi1", "virtio0"}; !slices.Equal(keys, want) {
		t.Errorf("disks: got %v; want %v (no cdroms, bus order)", keys, want)
	}
	if b, _ := cfg.BootDisk(); b.Key != "scsi0" || b.SizeGB != 32 {
		t.Errorf("boot disk: got %+v; want scsi0 32 GB", b)
	}
	if got := cfg.IPs(0); !reflect.DeepEqual(got, []string{"10.0.0.5"}) {
		t.Errorf("ips: got %v", got)
	}
	if got := cfg.TemplateID(); got != "tpl-9001" {
		t.Errorf("TemplateID: got %q", got)
	}
	if got := WithTemplateTag("a;vmplane-tpl-9001;b", 9000); got != "a;b;vmplane-tpl-9000" {
		t.Errorf("WithTemplateTag: got %q", got)
	}
}
