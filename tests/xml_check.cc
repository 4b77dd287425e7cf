#include "tests/xml_check.h"

#include <cctype>
#include <stdexcept>

namespace memplan::testing {

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::unique_ptr<XmlElement> Document() {
    CheckCharacters();
    Misc();
    if (!Starts("<")) Fail("no root element");
    auto root = Element();
    Misc();
    if (pos_ != s_.size()) Fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw std::runtime_error(why + " at byte " + std::to_string(pos_));
  }
  bool Starts(std::string_view p) const { return s_.substr(pos_).starts_with(p); }
  void Expect(std::string_view p) {
    if (!Starts(p)) Fail("expected '" + std::string(p) + "'");
    pos_ += p.size();
  }
  void Spaces() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void SkipPast(std::string_view end) {
    const auto at = s_.find(end, pos_);
    if (at == std::string_view::npos)
      Fail("unterminated construct, missing '" + std::string(end) + "'");
    pos_ = at + end.size();
  }

  // XML 1.0 forbids control characters other than tab, newline and carriage return,
  // and the text must be UTF-8.
  void CheckCharacters() {
    for (std::size_t i = 0; i < s_.size();) {
      const auto c = static_cast<unsigned char>(s_[i]);
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        pos_ = i;
        Fail("control character");
      }
      std::size_t n = c < 0x80         ? 1
                      : (c >> 5) == 6  ? 2
                      : (c >> 4) == 14 ? 3
                      : (c >> 3) == 30 ? 4
                                       : 0;
      if (n == 0 || i + n > s_.size()) {
        pos_ = i;
        Fail("invalid UTF-8");
      }
      for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(s_[i + k]) & 0xC0) != 0x80) {
          pos_ = i;
          Fail("invalid UTF-8");
        }
      i += n;
    }
  }

  // Comments, processing instructions and white space outside the root.
  void Misc() {
    for (;;) {
      Spaces();
      if (Starts("<?"))
        SkipPast("?>");
      else if (Starts("<!--"))
        SkipPast("-->");
      else
        return;
    }
  }

  std::string Name() {
    const std::size_t start = pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
          c == ':')
        ++pos_;
      else
        break;
    }
    if (pos_ == start || std::isdigit(static_cast<unsigned char>(s_[start]))) Fail("bad name");
    return std::string(s_.substr(start, pos_ - start));
  }

  // Decodes character data up to `stop`, checking every '&' starts a known entity.
  std::string CharData(char stop) {
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != stop) {
      const char c = s_[pos_];
      if (c == '<') Fail("'<' inside an attribute value");
      if (c != '&') {
        out += c;
        ++pos_;
        continue;
      }
      const auto semi = s_.find(';', pos_);
      if (semi == std::string_view::npos || semi - pos_ > 10) Fail("bad entity");
      const std::string_view entity = s_.substr(pos_ + 1, semi - pos_ - 1);
      if (entity == "amp")
        out += '&';
      else if (entity == "lt")
        out += '<';
      else if (entity == "gt")
        out += '>';
      else if (entity == "quot")
        out += '"';
      else if (entity == "apos")
        out += '\'';
      else if (entity.starts_with("#"))
        out += '?';
      else
        Fail("unknown entity &" + std::string(entity) + ";");
      pos_ = semi + 1;
    }
    return out;
  }

  std::unique_ptr<XmlElement> Element() {
    Expect("<");
    auto e = std::make_unique<XmlElement>();
    e->name = Name();
    for (;;) {
      const std::size_t before = pos_;
      Spaces();
      if (Starts("/>")) {
        pos_ += 2;
        return e;
      }
      if (Starts(">")) {
        ++pos_;
        break;
      }
      if (pos_ == before) Fail("expected white space between attributes");
      const std::string attr = Name();
      Spaces();
      Expect("=");
      Spaces();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) Fail("unquoted attribute");
      const char quote = s_[pos_++];
      std::string value = CharData(quote);
      Expect(std::string_view(&quote, 1));
      if (!e->attributes.emplace(attr, std::move(value)).second)
        Fail("duplicate attribute " + attr);
    }
    // Content.
    for (;;) {
      if (pos_ >= s_.size()) Fail("unclosed element <" + e->name + ">");
      if (Starts("</")) {
        pos_ += 2;
        if (Name() != e->name) Fail("mismatched end tag for <" + e->name + ">");
        Spaces();
        Expect(">");
        return e;
      }
      if (Starts("<!--")) {
        SkipPast("-->");
      } else if (Starts("<![CDATA[")) {
        const std::size_t start = pos_ + 9;
        SkipPast("]]>");
        e->text += std::string(s_.substr(start, pos_ - 3 - start));
      } else if (Starts("<?")) {
        SkipPast("?>");
      } else if (Starts("<")) {
        e->children.push_back(Element());
      } else {
        e->text += CharData('<');
      }
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

void Collect(const XmlElement& e, std::string_view tag, std::vector<const XmlElement*>& out) {
  if (e.name == tag) out.push_back(&e);
  for (const auto& c : e.children) Collect(*c, tag, out);
}

}  // namespace

std::vector<const XmlElement*> XmlElement::FindAll(std::string_view tag) const {
  std::vector<const XmlElement*> out;
  Collect(*this, tag, out);
  return out;
}

XmlResult ParseXml(std::string_view text) {
  XmlResult r;
  try {
    r.root = Parser(text).Document();
  } catch (const std::runtime_error& e) {
    r.error = e.what();
  }
  return r;
}

}  // namespace memplan::testing
