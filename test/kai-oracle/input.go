package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	enginev2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2"
	enginev2alpha2 "github.com/kai-scheduler/KAI-scheduler/pkg/apis/scheduling/v2alpha2"
)

// objects are the Kubernetes objects of one case, as read (the "world" between cycles).
type objects struct {
	Nodes           []*corev1.Node
	Pods            []*corev1.Pod
	Queues          []*enginev2.Queue
	PodGroups       []*enginev2alpha2.PodGroup
	PriorityClasses []*schedulingv1.PriorityClass
}

// The kinds quotient reads, by kind: the apiVersion each must have.
var supportedKinds = map[string]string{
	"Node":          "v1",
	"Pod":           "v1",
	"Queue":         "scheduling.run.ai/v2",
	"PodGroup":      "scheduling.run.ai/v2alpha2",
	"PriorityClass": "scheduling.k8s.io/v1",
}

// Lists nested deeper than this are not unwrapped (as quotient's loader).
const maxListDepth = 4

// loader collects objects and warnings from the inputs of one case.
type loader struct {
	out      objects
	warnings []string
}

func (l *loader) warn(source, what, message string) {
	if what != "" {
		message = what + ": " + message
	}
	l.warnings = append(l.warnings, source+": "+message)
}

// loadInputs reads every argument: a file, a directory (its *.yaml, *.yml and *.json files, by
// name, not recursive) or "-" (stdin). An unreadable input is an error; a bad object a warning.
func loadInputs(inputs []string, stdin io.Reader) (*objects, []string, error) {
	l := &loader{}
	for _, input := range inputs {
		if input == "-" {
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, l.warnings, fmt.Errorf("-: %v", err)
			}
			if err := l.decodeText(data, "-"); err != nil {
				return nil, l.warnings, err
			}
			continue
		}
		info, err := os.Stat(input)
		if err != nil {
			return nil, l.warnings, fmt.Errorf("%s: %v", input, describeOpenError(err))
		}
		if !info.IsDir() {
			if err := l.loadFile(input); err != nil {
				return nil, l.warnings, err
			}
			continue
		}
		files, err := manifestFiles(input)
		if err != nil {
			return nil, l.warnings, fmt.Errorf("%s: cannot list directory: %v", input, err)
		}
		if len(files) == 0 {
			l.warn(input, "", "no *.yaml, *.yml or *.json files in directory")
		}
		for _, f := range files {
			if err := l.loadFile(f); err != nil {
				return nil, l.warnings, err
			}
		}
	}
	return &l.out, l.warnings, nil
}

func describeOpenError(err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "no such file or directory"
	}
	return err.Error()
}

// manifestFiles lists a directory's regular *.yaml, *.yml and *.json files, sorted by name.
func manifestFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
			continue
		}
		files = append(files, path)
	}
	sort.Strings(files)
	return files, nil
}

func (l *loader) loadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, describeOpenError(err))
	}
	return l.decodeText(data, path)
}

// decodeText splits a YAML stream (JSON is YAML) into documents and decodes each. A syntax
// error makes the whole input unreadable. Scalars are read as YAML 1.2 does (as quotient does):
// `name: y` is the string "y", not YAML 1.1's true.
func (l *loader) decodeText(data []byte, source string) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v", source, err)
		}
		var node yamlv3.Node
		if err := yamlv3.Unmarshal(doc, &node); err != nil {
			return fmt.Errorf("%s: not YAML or JSON: %v", source, err)
		}
		if node.Kind == 0 || (node.Kind == yamlv3.DocumentNode && len(node.Content) == 0) {
			continue // an empty document, or one of only comments
		}
		if node.Kind == yamlv3.DocumentNode {
			l.decodeDocument(node.Content[0], source, 0, "", "")
		}
	}
}

// header is what decides how a document is decoded.
type header struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

func describe(h header, kind string) string {
	if h.Metadata.Name == "" {
		return kind
	}
	key := h.Metadata.Name
	if h.Metadata.Namespace != "" {
		key = h.Metadata.Namespace + "/" + key
	}
	if kind == "" {
		return key
	}
	return kind + " " + key
}

// mappingValue is the value of key in a YAML mapping node, or nil.
func mappingValue(node *yamlv3.Node, key string) *yamlv3.Node {
	for i := 0; i+1 < len(node.Content); i += 2 {
		if node.Content[i].Value == key {
			return node.Content[i+1]
		}
	}
	return nil
}

func scalarValue(node *yamlv3.Node, key string) string {
	if v := mappingValue(node, key); v != nil && v.Kind == yamlv3.ScalarNode && v.Tag != "!!null" {
		return v.Value
	}
	return ""
}

// decodeDocument decodes one document; items of a typed list (PodList) inherit its element kind
// and apiVersion when they omit them, as the API server's lists do.
func (l *loader) decodeDocument(node *yamlv3.Node, source string, depth int, defaultKind, defaultAPIVersion string) {
	if node.Kind == yamlv3.AliasNode && node.Alias != nil {
		node = node.Alias
	}
	if node.Kind != yamlv3.MappingNode {
		l.warn(source, "", "document is not a Kubernetes object; skipped")
		return
	}
	var h header
	if meta := mappingValue(node, "metadata"); meta != nil && meta.Kind == yamlv3.MappingNode {
		h.Metadata.Name = scalarValue(meta, "name")
		h.Metadata.Namespace = scalarValue(meta, "namespace")
	}
	kind, apiVersion := scalarValue(node, "kind"), scalarValue(node, "apiVersion")
	if kind == "" {
		kind = defaultKind
	}
	if apiVersion == "" {
		apiVersion = defaultAPIVersion
	}
	if kind == "" {
		l.warn(source, describe(h, ""), "document has no kind; skipped")
		return
	}
	if strings.HasSuffix(kind, "List") {
		l.decodeList(node, kind, apiVersion, source, depth)
		return
	}
	want, ok := supportedKinds[kind]
	if !ok {
		l.warn(source, describe(h, kind), "skipping unsupported kind "+kind+" "+apiVersion)
		return
	}
	if apiVersion != want {
		l.warn(source, describe(h, kind), fmt.Sprintf(
			"skipping %s with unsupported apiVersion %q (expected %s)", kind, apiVersion, want))
		return
	}
	if err := l.appendObject(node, kind); err != nil {
		l.warn(source, describe(h, kind), fmt.Sprintf("cannot decode: %v; skipped", err))
	}
}

// quoteStrings marks every string scalar of a YAML tree for double quotes when written.
func quoteStrings(node *yamlv3.Node) {
	if node.Kind == yamlv3.ScalarNode && node.ShortTag() == "!!str" {
		node.Style = yamlv3.DoubleQuotedStyle
	}
	for _, child := range node.Content {
		quoteStrings(child)
	}
}

func (l *loader) decodeList(node *yamlv3.Node, kind, apiVersion, source string, depth int) {
	if depth >= maxListDepth {
		l.warn(source, kind, "lists nested too deep; skipped")
		return
	}
	items := mappingValue(node, "items")
	if items == nil || items.Tag == "!!null" {
		return
	}
	if items.Kind != yamlv3.SequenceNode {
		l.warn(source, kind, "items is not a list; skipped")
		return
	}
	itemKind, itemAPIVersion := "", ""
	if kind != "List" {
		itemKind, itemAPIVersion = strings.TrimSuffix(kind, "List"), apiVersion
	}
	for _, item := range items.Content {
		l.decodeDocument(item, source, depth+1, itemKind, itemAPIVersion)
	}
}

// appendObject decodes a document as the typed object KAI's clients hold. The kind and
// apiVersion a list item inherited are not needed: typed objects are told apart by Go type.
func (l *loader) appendObject(node *yamlv3.Node, kind string) error {
	var obj interface{}
	switch kind {
	case "Node":
		obj = &corev1.Node{}
	case "Pod":
		obj = &corev1.Pod{}
	case "Queue":
		obj = &enginev2.Queue{}
	case "PodGroup":
		obj = &enginev2alpha2.PodGroup{}
	case "PriorityClass":
		obj = &schedulingv1.PriorityClass{}
	}
	if err := decodeNode(node, obj); err != nil {
		return err
	}
	switch o := obj.(type) {
	case *corev1.Node:
		l.out.Nodes = append(l.out.Nodes, o)
	case *corev1.Pod:
		l.out.Pods = append(l.out.Pods, o)
	case *enginev2.Queue:
		l.out.Queues = append(l.out.Queues, o)
	case *enginev2alpha2.PodGroup:
		l.out.PodGroups = append(l.out.PodGroups, o)
	case *schedulingv1.PriorityClass:
		l.out.PriorityClasses = append(l.out.PriorityClasses, o)
	}
	return nil
}

// decodeNode fills a typed object from a YAML tree. The fast way writes the tree as JSON, each
// scalar by its YAML 1.2 type, for encoding/json. When that does not fit the object (a number
// where the object wants a string, as in an unquoted label value), the tree goes through YAML
// text again, its strings quoted, to sigs.k8s.io/yaml, which converts scalars by the type of
// the field they land in.
func decodeNode(node *yamlv3.Node, obj interface{}) error {
	var buf bytes.Buffer
	if nodeJSON(node, &buf) == nil && json.Unmarshal(buf.Bytes(), obj) == nil {
		return nil
	}
	quoteStrings(node)
	text, err := yamlv3.Marshal(node)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(text, obj)
}

var errNotJSON = errors.New("not representable as JSON")

// nodeJSON writes a YAML tree as JSON; errNotJSON for what has no plain JSON form.
func nodeJSON(node *yamlv3.Node, out *bytes.Buffer) error {
	switch node.Kind {
	case yamlv3.DocumentNode:
		if len(node.Content) != 1 {
			return errNotJSON
		}
		return nodeJSON(node.Content[0], out)
	case yamlv3.AliasNode:
		if node.Alias == nil {
			return errNotJSON
		}
		return nodeJSON(node.Alias, out)
	case yamlv3.MappingNode:
		out.WriteByte('{')
		for i := 0; i+1 < len(node.Content); i += 2 {
			key := node.Content[i]
			if key.Kind != yamlv3.ScalarNode || key.Value == "<<" {
				return errNotJSON
			}
			if i > 0 {
				out.WriteByte(',')
			}
			writeJSONString(out, key.Value)
			out.WriteByte(':')
			if err := nodeJSON(node.Content[i+1], out); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	case yamlv3.SequenceNode:
		out.WriteByte('[')
		for i, item := range node.Content {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := nodeJSON(item, out); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case yamlv3.ScalarNode:
		switch node.ShortTag() {
		case "!!str":
			writeJSONString(out, node.Value)
		case "!!null":
			out.WriteString("null")
		case "!!bool":
			var b bool
			if node.Decode(&b) != nil {
				return errNotJSON
			}
			out.WriteString(strconv.FormatBool(b))
		case "!!int", "!!float":
			// Decimal numbers only: 0x10, .inf and the like go the slow way.
			if !json.Valid([]byte(node.Value)) {
				return errNotJSON
			}
			out.WriteString(node.Value)
		default:
			return errNotJSON
		}
	default:
		return errNotJSON
	}
	return nil
}

func writeJSONString(out *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	out.Write(b)
}
