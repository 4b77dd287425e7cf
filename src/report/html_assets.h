#pragma once
// The style sheet and the script of the HTML page (html.h), inline in the page so it
// needs no network. The script reads the page's data (`var MEMPLAN = {...}`, see
// html.cc) and the maps' SVG; docs/command.md ("show") describes what a user can do.
namespace memplan::report {

// The page's CSS.
extern const char* const kHtmlStyle;

// The page's JavaScript: plan switching (table rows, #plan=KEY), tooltips, the tensor
// search (?search=NAME preloads one) and a self-test (?selftest=NAME) that the browser
// test (tests/browser_test.sh) reads back from the DOM.
extern const char* const kHtmlScript;

}  // namespace memplan::report
