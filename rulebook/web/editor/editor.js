// The playground's editor: CodeMirror 6 with the rules language's highlighting and the
// checker's diagnostics drawn in place. `npm install && npm run build` writes
// ../static/codemirror.js (committed, so installing rulebook needs no Node).
import {EditorState} from "@codemirror/state";
import {EditorView, keymap, lineNumbers, highlightActiveLine, drawSelection} from "@codemirror/view";
import {defaultKeymap, history, historyKeymap, indentWithTab} from "@codemirror/commands";
import {StreamLanguage, syntaxHighlighting, defaultHighlightStyle, bracketMatching,
        indentUnit} from "@codemirror/language";
import {linter, lintGutter, setDiagnostics, forceLinting} from "@codemirror/lint";
import {searchKeymap, highlightSelectionMatches} from "@codemirror/search";

// the language's keywords: the words quoted in grammar/rules.lark
const KEYWORDS = new Set("add after among and as assumed at automaton award before by choose cite compose const deck define do else end enum error expect extends false first for from game given grid hidden hide if in internal invariant label least let list log map match modifier most move new no none not of on option options or otherwise over override pass passed phase pieces play players prefer procedure public random reaction record refuse remove repeat require reveal rotate rounds ruleset scenario scoring seed seeds set setup shape show showing shown shuffle simultaneously slide soon sort sorted source stacked start starting step stop table then ties times to top trigger true turn turns until variant visible when where while winner with ".trim().split(/\s+/));

const rules = StreamLanguage.define({
  name: "rules",
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match("#")) { stream.skipToEnd(); return "comment"; }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return "string";
    if (stream.match(/^\d+(\.\d+)?/)) return "number";
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (word) return KEYWORDS.has(word[0]) ? "keyword" : "variableName";
    stream.next();
    return null;
  },
  languageData: {commentTokens: {line: "#"}},
});

// line and column (1-based, as the checker gives them) to a position in the document
function position(doc, line, column) {
  if (!line) return 0;
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
  return Math.min(l.from + Math.max((column || 1) - 1, 0), l.to);
}

function toCodeMirror(doc, list) {
  return list.filter(d => !d.file).map(d => {
    const from = position(doc, d.line, d.column);
    let to = d.end_line ? position(doc, d.end_line, d.end_column) : from;
    if (to <= from) to = Math.min(from + 1, doc.line(doc.lineAt(from).number).to);
    return {from, to: Math.max(to, from), severity: d.severity === "error" ? "error" : "warning",
            message: "[" + d.code + "] " + d.message + (d.hint ? "\nhelp: " + d.hint : "")};
  });
}

window.RulebookEditor = {
  create(parent, text, onChange) {
    const view = new EditorView({
      parent,
      state: EditorState.create({doc: text, extensions: [
        lineNumbers(), history(), drawSelection(), highlightActiveLine(), bracketMatching(),
        highlightSelectionMatches(), indentUnit.of("    "), rules,
        syntaxHighlighting(defaultHighlightStyle), lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
        EditorView.updateListener.of(u => { if (u.docChanged) onChange(); }),
      ]}),
    });
    return {
      view,
      text: () => view.state.doc.toString(),
      setText(t) { view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: t}}); },
      show(list) { view.dispatch(setDiagnostics(view.state, toCodeMirror(view.state.doc, list))); },
      goTo(line, column) {
        const at = position(view.state.doc, line, column);
        view.dispatch({selection: {anchor: at}, scrollIntoView: true});
        view.focus();
      },
    };
  },
};
