#include "kube/value.h"

#include <gtest/gtest.h>

namespace quotient::kube {
namespace {

TEST(YamlAdapter, KeepsNumberTextExactlyAndResolvesPlainScalars) {
  Result<std::vector<Value>> docs = ParseYamlDocuments(R"(
a: 0.1
b: "0.1"
c: true
d: ~
e: 1e3
f: hello
g: 'null'
h: !!str 12
i: [1, x]
)");
  ASSERT_TRUE(docs.ok()) << docs.message();
  ASSERT_EQ(docs.value().size(), 1u);
  const Value& doc = docs.value()[0];
  ASSERT_TRUE(doc.is_mapping());
  EXPECT_EQ(doc.keys(), (std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h", "i"}));
  EXPECT_EQ(doc.Find("a")->type(), Value::Type::kNumber);
  EXPECT_EQ(doc.Find("a")->text(), "0.1");
  EXPECT_EQ(doc.Find("b")->type(), Value::Type::kString);
  EXPECT_EQ(doc.Find("b")->text(), "0.1");
  EXPECT_EQ(doc.Find("c")->type(), Value::Type::kBool);
  EXPECT_TRUE(doc.Find("c")->bool_value());
  EXPECT_TRUE(doc.Find("d")->is_null());
  EXPECT_EQ(doc.Find("e")->type(), Value::Type::kNumber);
  EXPECT_EQ(doc.Find("e")->text(), "1e3");
  EXPECT_EQ(doc.Find("f")->type(), Value::Type::kString);
  EXPECT_EQ(doc.Find("g")->type(), Value::Type::kString);
  EXPECT_EQ(doc.Find("g")->text(), "null");
  EXPECT_EQ(doc.Find("h")->type(), Value::Type::kString);
  ASSERT_TRUE(doc.Find("i")->is_sequence());
  EXPECT_EQ(doc.Find("i")->items()[0].type(), Value::Type::kNumber);
  EXPECT_EQ(doc.Find("i")->items()[1].type(), Value::Type::kString);
  EXPECT_EQ(doc.Find("missing"), nullptr);
}

TEST(YamlAdapter, SplitsStreamAndSkipsEmptyDocuments) {
  Result<std::vector<Value>> docs =
      ParseYamlDocuments("---\na: 1\n---\n---\n# only a comment\n---\nb: 2\n");
  ASSERT_TRUE(docs.ok()) << docs.message();
  ASSERT_EQ(docs.value().size(), 2u);
  EXPECT_NE(docs.value()[0].Find("a"), nullptr);
  EXPECT_NE(docs.value()[1].Find("b"), nullptr);
}

TEST(YamlAdapter, EmptyTextHasNoDocuments) {
  Result<std::vector<Value>> docs = ParseYamlDocuments("");
  ASSERT_TRUE(docs.ok());
  EXPECT_TRUE(docs.value().empty());
}

TEST(YamlAdapter, SyntaxErrorNamesTheLine) {
  Result<std::vector<Value>> docs = ParseYamlDocuments("a: 1\nb: [1, 2\nc: 3\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.message().find("line "), std::string::npos) << docs.message();
  Result<std::vector<Value>> bad_indent = ParseYamlDocuments("a:\n  b: 1\n c: 2\n");
  ASSERT_FALSE(bad_indent.ok());
  EXPECT_NE(bad_indent.message().find("line 3"), std::string::npos) << bad_indent.message();
}

TEST(YamlAdapter, AliasBombIsRefusedNotExpanded) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev + ", " + prev +
            ", " + prev + ", " + prev + ", " + prev + ", " + prev + ", " + prev + ", " + prev +
            ", " + prev + ", " + prev + "]\n";
  }
  Result<std::vector<Value>> docs = ParseYamlDocuments(text);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.message().find("too large"), std::string::npos) << docs.message();
}

TEST(JsonAdapter, KeepsNumberTokensExactly) {
  Result<Value> doc = ParseJson(
      R"({"a": 0.1, "b": "0.1", "c": [1e-3, -1 , 12345678901234567890123], "d": null, "e": false,
          "f": "esc\"aped\u00e9"})");
  ASSERT_TRUE(doc.ok()) << doc.message();
  const Value& v = doc.value();
  EXPECT_EQ(v.Find("a")->type(), Value::Type::kNumber);
  EXPECT_EQ(v.Find("a")->text(), "0.1");
  EXPECT_EQ(v.Find("b")->type(), Value::Type::kString);
  const Value& c = *v.Find("c");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c.items()[0].text(), "1e-3");
  EXPECT_EQ(c.items()[1].text(), "-1");
  EXPECT_EQ(c.items()[2].text(), "12345678901234567890123");
  EXPECT_TRUE(v.Find("d")->is_null());
  EXPECT_EQ(v.Find("e")->type(), Value::Type::kBool);
  EXPECT_FALSE(v.Find("e")->bool_value());
  EXPECT_EQ(v.Find("f")->text(), "esc\"aped\xC3\xA9");
}

TEST(JsonAdapter, DuplicateKeysLastWins) {
  Result<Value> doc = ParseJson(R"({"a": 1, "a": 2})");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc.value().Find("a")->text(), "2");
}

TEST(JsonAdapter, ReportsSyntaxErrors) {
  EXPECT_FALSE(ParseJson(R"({"a": 1,})").ok());
  EXPECT_FALSE(ParseJson(R"({"a": 1)").ok());
  EXPECT_FALSE(ParseJson(R"({"a": 01})").ok());
  EXPECT_FALSE(ParseJson(R"({"a": tru})").ok());
  EXPECT_FALSE(ParseJson(R"({"a": 1 "b": 2})").ok());
  EXPECT_FALSE(ParseJson(R"({"a": 1.})").ok());
  EXPECT_FALSE(ParseJson("{\"a\": \"\xff\"}").ok());  // invalid UTF-8
  Result<Value> trailing = ParseJson("{\"a\": 1}\n{\"b\": 2}");
  ASSERT_FALSE(trailing.ok());
  Result<Value> late = ParseJson("{\n\"a\": 1,\n\"b\": [1, 2,, 3]\n}");
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.message().find("line 3"), std::string::npos) << late.message();
}

TEST(JsonAdapter, ScalarAndArrayRoots) {
  Result<Value> scalar = ParseJson("  \"hello\"  ");
  ASSERT_TRUE(scalar.ok()) << scalar.message();
  EXPECT_EQ(scalar.value().type(), Value::Type::kString);
  Result<Value> array = ParseJson("[1, 2]");
  ASSERT_TRUE(array.ok()) << array.message();
  EXPECT_EQ(array.value().size(), 2u);
}

TEST(LooksLikeJson, FirstNonSpaceCharacterDecides) {
  EXPECT_TRUE(LooksLikeJson("  \n{\"a\": 1}"));
  EXPECT_TRUE(LooksLikeJson("[]"));
  EXPECT_TRUE(LooksLikeJson("\xEF\xBB\xBF{}"));
  EXPECT_FALSE(LooksLikeJson("apiVersion: v1"));
  EXPECT_FALSE(LooksLikeJson("# {comment}\na: 1"));
  EXPECT_FALSE(LooksLikeJson(""));
}

}  // namespace
}  // namespace quotient::kube
