// envsubst-oracle answers, for each case on stdin, what Flux's post-build substitution makes
// of a template: github.com/fluxcd/pkg/envsubst's Eval with the variable lookup that
// kustomize-controller passes it (fluxcd/pkg/kustomize varSubstitution). Outside strict
// mode an unset variable reads as empty; in strict mode it is reported as unset.
//
// A case: {"template": "...", "vars": {"NAME": "value"}, "strict": false}
// An answer: {"result": "<the output's bytes, base64>"} or {"error": "..."}
package main

import (
	"encoding/base64"
	"encoding/json"

	"github.com/fluxcd/pkg/envsubst"

	"fluxlens/test/differential/internal/lines"
)

type substitution struct {
	Template string            `json:"template"`
	Vars     map[string]string `json:"vars"`
	Strict   bool              `json:"strict"`
}

func main() {
	lines.Main(answer)
}

func answer(line []byte) lines.Answer {
	var c substitution
	if err := json.Unmarshal(line, &c); err != nil {
		return lines.Answer{Error: "oracle: unreadable case: " + err.Error()}
	}
	output, err := envsubst.Eval(c.Template, func(name string) (string, bool) {
		if c.Strict {
			value, exists := c.Vars[name]
			return value, exists
		}
		return c.Vars[name], true
	})
	if err != nil {
		return lines.Answer{Error: err.Error()}
	}
	// Base64, because an operator can cut a multi-byte character in two and JSON strings
	// cannot carry the invalid UTF-8 that leaves.
	return lines.Answer{Result: base64.StdEncoding.EncodeToString([]byte(output))}
}
