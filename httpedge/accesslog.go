package httpedge

import (
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// accessLog writes one line per request (Options.AccessLog) in the combined log
// format web servers use, followed by the request id and the time taken:
//
//	127.0.0.1 - - [27/Nov/2026:15:04:05 +0000] "GET /api/client/machines HTTP/1.1" 200 512 "-" "curl/8.0" 01J... 0.003
//
// The path is logged without its query: a query may carry a console ticket or a reset
// link's token. The user is not logged (the audit lines name it for changes).
type accessLog struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *accessLog) write(rc *fasthttp.RequestCtx, client, id string, took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buf[:0]
	b = append(b, client...)
	b = append(b, " - - ["...)
	b = time.Now().AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
	b = append(b, "] \""...)
	b = append(b, rc.Method()...)
	b = append(b, ' ')
	b = appendSafe(b, rc.Path())
	b = append(b, ' ')
	b = append(b, rc.Request.Header.Protocol()...)
	b = append(b, "\" "...)
	b = strconv.AppendInt(b, int64(rc.Response.StatusCode()), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(rc.Response.Body())), 10)
	b = append(b, " \""...)
	b = appendSafe(b, orDash(rc.Request.Header.Referer()))
	b = append(b, "\" \""...)
	b = appendSafe(b, orDash(rc.Request.Header.UserAgent()))
	b = append(b, "\" "...)
	b = append(b, id...)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, took.Seconds(), 'f', 3, 64)
	b = append(b, '\n')
	l.buf = b
	_, _ = l.w.Write(b)
}

func orDash(v []byte) []byte {
	if len(v) == 0 {
		return []byte("-")
	}
	return v
}

// appendSafe appends v with quotes, backslashes and control bytes escaped, so that a
// client cannot forge a line or a field.
func appendSafe(b, v []byte) []byte {
	for _, c := range v {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'x', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}
