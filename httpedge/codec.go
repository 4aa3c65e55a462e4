package httpedge

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// rawJSON is a body that is already encoded.
type rawJSON []byte

func writeJSON(rc *fasthttp.RequestCtx, v any) error {
	rc.SetContentType("application/json")
	if a, ok := v.(persistence.JSONAppender); ok {
		b, err := a.AppendJSON(make([]byte, 0, 512))
		if err != nil {
			return err
		}
		rc.Response.SetBodyRaw(append(b, '\n'))
		return nil
	}
	return encodeJSON(rc.Response.BodyWriter(), v)
}

// marshalJSON is v as writeJSON writes it, for bodies encoded once and served many times.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeJSON is the one JSON form of every answer: HTML characters unescaped, a
// newline at the end.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Decode reads the JSON body strictly into v: it must be one JSON value, every field
// must be known, and every value must have the right type.
func (c *Call) Decode(v any) error {
	body := c.rc.PostBody()
	if len(bytes.TrimSpace(body)) == 0 {
		return apierr.New(apierr.ErrInvalidJSON, "a JSON body is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.New(apierr.ErrInvalidJSON, "the body must hold exactly one JSON value")
	}
	return nil
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return apierr.New(apierr.ErrInvalidJSON, "the body is not valid JSON")
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return apierr.Invalid(apierr.Field(field, "must be %s", jsonKind(typ.Type.Kind().String())))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no typed error for unknown fields; its message is stable.
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierr.Invalid(apierr.Field(name, "is not a known field"))
	}
	return apierr.New(apierr.ErrInvalidJSON, "the body could not be decoded")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return "a number"
}

// jsonUnmarshal decodes leniently, for peeking at one field before a strict decode.
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
