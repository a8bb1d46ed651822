// ESLint for tabwire's JavaScript, run from the repository root by run.sh
// (and by .ci/run). Correctness only: js.configs.recommended plus a few
// rules that catch bugs; no style rules (the code keeps its own layout).
import js from "@eslint/js";
import globals from "globals";

// Rules for every file: what recommended lacks that still finds real bugs.
const bugs = {
  // Unused names are dead code or a typo; `_`-prefixed ones are on purpose.
  "no-unused-vars": ["error", {
    args: "after-used",
    argsIgnorePattern: "^_",
    varsIgnorePattern: "^_",
    caughtErrors: "all",
    caughtErrorsIgnorePattern: "^_",
    destructuredArrayIgnorePattern: "^_",
    ignoreRestSiblings: true,
  }],
  "array-callback-return": "error",
  "no-self-compare": "error",
  "no-template-curly-in-string": "error",
  "no-unreachable-loop": "error",
  "no-use-before-define": ["error", { functions: false, classes: false, variables: false }],
};

// Window properties that pass for local names (`name`, `top`, `parent`,
// `event`…): with one of these undeclared, the code would read the
// window's property, and no-undef cannot tell. (Properties the scripts
// do mean, such as innerWidth or location, are not on the list.)
const confusing = ["blur", "close", "closed", "event", "external", "find", "focus", "frames",
  "length", "name", "open", "opener", "origin", "parent", "print", "screen", "status",
  "stop", "top"];

export default [
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  // The engine's parts do not parse alone (the engine is one script cut
  // into them): run.sh lints them joined, as target/jslint/engine.js.
  { ignores: ["src/engine/parts/**"] },
  js.configs.recommended,
  { rules: bugs },

  // The MV3 extension: ES modules (background.js is a module service
  // worker; popup.js and confirm.js are <script type="module"> pages).
  {
    files: ["extension/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions },
    },
    rules: { "no-restricted-globals": ["error", ...confusing] },
  },

  // The in-page engine (its parts joined by run.sh into
  // target/jslint/engine.js) and bench/fidelity.py's oracles: each is one
  // expression (an arrow function called at once) that the Rust side or the
  // bench evaluates through CDP in the page's "tabwire" isolated world, so
  // they parse as classic scripts with the page's globals. No `chrome`.
  {
    files: ["target/jslint/engine.js", "bench/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "script",
      globals: { ...globals.browser },
    },
    rules: { "no-restricted-globals": ["error", ...confusing] },
  },

  // The npm launcher (installer/npm): CommonJS run by Node.
  {
    files: ["installer/npm/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "commonjs",
      globals: { ...globals.node },
    },
  },
];
