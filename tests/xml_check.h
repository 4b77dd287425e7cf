#pragma once
// A small XML well-formedness checker for the tests of the SVG output, so they need no
// XML library: elements, attributes, entities, comments, processing instructions.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace memplan::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;  // values with entities decoded
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;  // the element's own character data, decoded

  // Every element below (and including) this one called `tag`.
  std::vector<const XmlElement*> FindAll(std::string_view tag) const;
};

struct XmlResult {
  std::unique_ptr<XmlElement> root;  // null when the document is not well formed
  std::string error;                 // why, with a byte offset
};

XmlResult ParseXml(std::string_view text);

}  // namespace memplan::testing
