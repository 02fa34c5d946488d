// chart-render renders a Helm chart the way `helm template` does, for the tests: Go's own
// text/template with sprig (the function library Helm uses), plus the functions Helm adds
// (include, tpl, toYaml, fromYaml, toJson, required; lookup refused, as in `helm template`),
// values.yaml merged with --values files and --set pairs, and the values checked against the
// chart's values.schema.json before anything renders. No helm binary can be had here; every
// piece of this one comes from Debian's archive (Go 1.19, sprig 3.2.3, gojsonschema, ghodss/yaml).
//
// Usage: chart-render --chart DIR [--values FILE]... [--set a.b=c]... [--release NAME]
//
//	[--namespace NS] [--kube-version 1.20.2]
//
// Output: every rendered document, each after a `# Source: CHART/templates/FILE` line, in file
// order, as `helm template` prints them. Exit 2 with the problems on stderr when the values do
// not meet the schema or a template fails.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
	"github.com/xeipuuv/gojsonschema"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	chartDir := flag.String("chart", "", "the chart directory")
	release := flag.String("release", "release-name", "the release name")
	namespace := flag.String("namespace", "default", "the release namespace")
	kubeVersion := flag.String("kube-version", "1.20.2", "Capabilities.KubeVersion")
	var valueFiles, sets multiFlag
	flag.Var(&valueFiles, "values", "a values file (repeatable; later files win)")
	flag.Var(&sets, "set", "a.b=value (repeatable; wins over the files)")
	flag.Parse()
	if *chartDir == "" {
		fail("--chart is required")
	}
	out, err := render(*chartDir, *release, *namespace, *kubeVersion, valueFiles, sets)
	if err != nil {
		fail(err.Error())
	}
	os.Stdout.WriteString(out)
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, "Error: "+message)
	os.Exit(2)
}

func render(dir, release, namespace, kubeVersion string, files, sets []string) (string, error) {
	chart, err := readYamlFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	values, err := readYamlFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		return "", err
	}
	for _, file := range files {
		more, err := readYamlFile(file)
		if err != nil {
			return "", err
		}
		values = merge(values, more)
	}
	for _, pair := range sets {
		if err := setValue(values, pair); err != nil {
			return "", err
		}
	}
	name, _ := chart["name"].(string)
	if err := checkSchema(dir, name, values); err != nil {
		return "", err
	}
	major, minor := splitVersion(kubeVersion)
	data := map[string]interface{}{
		"Values": values,
		"Release": map[string]interface{}{
			"Name": release, "Namespace": namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Chart": map[string]interface{}{
			"Name": name, "Version": chart["version"], "AppVersion": chart["appVersion"],
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{
				"Version": "v" + kubeVersion, "GitVersion": "v" + kubeVersion,
				"Major": major, "Minor": minor,
			},
		},
	}
	return renderTemplates(dir, name, data)
}

func renderTemplates(dir, chartName string, data map[string]interface{}) (string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "templates", "*"))
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	root := template.New("gotpl").Option("missingkey=zero")
	funcs := helmFuncs(root)
	root.Funcs(funcs)
	var rendered []string
	for _, path := range paths {
		base := filepath.Base(path)
		if !strings.HasSuffix(base, ".yaml") && !strings.HasSuffix(base, ".tpl") {
			continue
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		tplName := chartName + "/templates/" + base
		if _, err := root.New(tplName).Parse(string(text)); err != nil {
			return "", err
		}
		if !strings.HasPrefix(base, "_") {
			rendered = append(rendered, tplName)
		}
	}
	var out strings.Builder
	for _, tplName := range rendered {
		scoped := copyMap(data)
		scoped["Template"] = map[string]interface{}{"Name": tplName, "BasePath": chartName + "/templates"}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, tplName, scoped); err != nil {
			return "", err
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		for _, doc := range splitDocuments(text) {
			out.WriteString("---\n# Source: " + tplName + "\n" + doc + "\n")
		}
	}
	return out.String(), nil
}

// helmFuncs: sprig's functions without env/expandenv (Helm removes them), plus Helm's own.
func helmFuncs(root *template.Template) template.FuncMap {
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = func(v interface{}) string {
		b, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(b), "\n")
	}
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["toJson"] = func(v interface{}) string {
		b, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(b)
	}
	funcs["required"] = func(message string, v interface{}) (interface{}, error) {
		if v == nil {
			return v, errors.New(message)
		}
		if s, ok := v.(string); ok && s == "" {
			return v, errors.New(message)
		}
		return v, nil
	}
	funcs["lookup"] = func(...interface{}) (interface{}, error) {
		return nil, errors.New("lookup is not available: the chart must render without a cluster (helm template)")
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	return funcs
}

func checkSchema(dir, chartName string, values map[string]interface{}) error {
	schemaPath := filepath.Join(dir, "values.schema.json")
	schema, err := os.ReadFile(schemaPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	valuesJSON, err := json.Marshal(values)
	if err != nil {
		return err
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(valuesJSON))
	if err != nil {
		return fmt.Errorf("%s: %v", schemaPath, err)
	}
	if result.Valid() {
		return nil
	}
	var problems []string
	for _, e := range result.Errors() {
		problems = append(problems, "- "+e.String())
	}
	sort.Strings(problems)
	return errors.New("values don't meet the specifications of the schema(s) in the following chart(s):\n" +
		chartName + ":\n" + strings.Join(problems, "\n"))
}

func readYamlFile(path string) (map[string]interface{}, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(text, &out); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// merge: maps merge key by key, anything else in `over` replaces what is in `base`.
func merge(base, over map[string]interface{}) map[string]interface{} {
	out := copyMap(base)
	for k, v := range over {
		if vm, ok := v.(map[string]interface{}); ok {
			if bm, ok := out[k].(map[string]interface{}); ok {
				out[k] = merge(bm, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// setValue: `a.b.c=value` as `helm --set` reads it: true/false, null and integers are typed.
func setValue(values map[string]interface{}, pair string) error {
	eq := strings.Index(pair, "=")
	if eq <= 0 {
		return fmt.Errorf("--set %q: expected key=value", pair)
	}
	keys := strings.Split(pair[:eq], ".")
	raw := pair[eq+1:]
	var value interface{} = raw
	switch {
	case raw == "true" || raw == "false":
		value = raw == "true"
	case raw == "null":
		value = nil
	default:
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
			value = n
		}
	}
	node := values
	for _, key := range keys[:len(keys)-1] {
		next, ok := node[key].(map[string]interface{})
		if !ok {
			next = map[string]interface{}{}
			node[key] = next
		}
		node = next
	}
	node[keys[len(keys)-1]] = value
	return nil
}

func splitDocuments(text string) []string {
	var docs []string
	for _, part := range strings.Split("\n"+text, "\n---") {
		trimmed := strings.TrimSpace(part)
		if trimmed == "" || onlyComments(trimmed) {
			continue
		}
		docs = append(docs, strings.TrimRight(strings.TrimLeft(part, "\n"), " \n"))
	}
	return docs
}

func onlyComments(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

func copyMap(m map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func splitVersion(v string) (string, string) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v, "0"
	}
	return parts[0], parts[1]
}
