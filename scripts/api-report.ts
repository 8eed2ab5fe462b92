// The public API report: for every entry in package.json `exports`, one line per exported name
// with its declaration as a user's editor sees it (the emitted `.d.ts`, comments removed,
// whitespace collapsed), sorted by name. `api/<entry>.api.txt` holds the checked-in copy;
// test/architecture/api-report.test.ts fails when they differ, and `npm run api:update`
// rewrites them.
//
// typescript 7 has no compiler API, so this uses typescript 5.9 (the `typescript-5` alias); the
// sources pass the same strict checks under both. No `node:` import here: the test that imports
// this file type-checks without Node's types, and TypeScript's own `sys` reads the files.
import ts from "typescript-5";

const root = decodeURIComponent(new URL("../", import.meta.url).pathname);

export interface Entry {
  /** The import specifier, e.g. `toolwire/agent`. */
  name: string;
  /** The entry's source, relative to the repository root. */
  source: string;
  /** The checked-in report, relative to the repository root. */
  report: string;
}

/** The entries, from package.json `exports` (`./dist/agent/index.js` is `src/agent/index.ts`). */
export function apiEntries(): Entry[] {
  const pkg = JSON.parse(ts.sys.readFile(`${root}package.json`) ?? "{}") as {
    name: string;
    exports: Record<string, { import: string }>;
  };
  return Object.entries(pkg.exports).map(([key, target]) => {
    const name = key === "." ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, "")}`;
    return {
      name,
      source: target.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"),
      report: `api/${name.replaceAll("/", "-")}.api.txt`,
    };
  });
}

const printer = ts.createPrinter({ removeComments: true });

function namedStatements(file: ts.SourceFile, name: string): ts.Statement[] {
  return file.statements.filter((statement) => {
    if (ts.isVariableStatement(statement)) {
      return statement.declarationList.declarations.some(
        (d) => ts.isIdentifier(d.name) && d.name.text === name,
      );
    }
    const named = statement as ts.Statement & { name?: ts.Node };
    return named.name !== undefined && ts.isIdentifier(named.name) && named.name.text === name;
  });
}

function print(statement: ts.Statement, file: ts.SourceFile): string {
  return printer
    .printNode(ts.EmitHint.Unspecified, statement, file)
    .replace(/\s+/g, " ")
    .replace(/^export /, "")
    .replace(/^declare /, "")
    .replace(/;$/, "");
}

/** The lines of a TSDoc block, without its delimiters and leading asterisks. */
function docText(comment: string): string {
  return comment
    .replace(/^\/\*\*\s?/, "")
    .replace(/\s*\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join("\n")
    .trim();
}

/** One export's section of the API reference: its TSDoc, tags and declaration. */
function referenceSection(
  name: string,
  symbol: ts.Symbol,
  checker: ts.TypeChecker,
  declaration: string,
): string {
  const parts = [`## ${name}`, "", "```ts", declaration, "```", ""];
  const doc = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  if (doc) parts.push(doc, "");
  for (const tag of symbol.getJsDocTags(checker)) {
    const text = ts.displayPartsToString(tag.text).trim();
    if (tag.name === "example") {
      if (parts.at(-1) !== "") parts.push("");
      parts.push("Example:", "", text, "");
    } else parts.push(`- **@${tag.name}** ${text.replaceAll("\n", "\n  ")}`);
  }
  if (parts.at(-1) !== "") parts.push("");
  return parts.join("\n");
}

/** Each entry's API reference in Markdown (docs/api/<entry>.md), keyed by entry name. */
export function apiReferences(): Map<string, string> {
  return apiSurface().references;
}

/** Each entry's report text, keyed by entry name. */
export function apiReports(): Map<string, string> {
  return apiSurface().reports;
}

/** The reports and the Markdown references, from one compilation. */
export function apiSurface(): { reports: Map<string, string>; references: Map<string, string> } {
  const entries = apiEntries();
  const config = ts.readConfigFile(`${root}tsconfig.json`, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    types: ["node"],
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: root,
    outDir: `${root}.api-out`,
  };
  const program = ts.createProgram(
    entries.map((entry) => root + entry.source),
    options,
  );
  const declarations = new Map<string, ts.SourceFile>();
  program.emit(
    undefined,
    (fileName, text, _bom, _onError, sources) => {
      const source = sources?.[0];
      if (source && fileName.endsWith(".d.ts")) {
        declarations.set(
          source.fileName,
          ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest),
        );
      }
    },
    undefined,
    true,
  );
  const checker = program.getTypeChecker();
  const reports = new Map<string, string>();
  const references = new Map<string, string>();
  for (const entry of entries) {
    const file = program.getSourceFile(root + entry.source);
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`${entry.source}: not found`);
    const lines = checker.getExportsOfModule(module).map((exported) => {
      const target =
        exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const origins = new Set((target.declarations ?? []).map((d) => d.getSourceFile()));
      const statements = [...origins].flatMap((origin) => {
        const dts = origin.isDeclarationFile ? origin : declarations.get(origin.fileName);
        if (!dts) return [];
        return namedStatements(dts, target.name).map((statement) => ({ statement, dts }));
      });
      const printed = statements.map(({ statement, dts }) => print(statement, dts));
      const alias = target.name === exported.name ? "" : `${exported.name} = `;
      const text = printed.length > 0 ? printed.join("; ") : `${exported.name} (no declaration)`;
      const declaration = statements
        .map(({ statement, dts }) =>
          printer
            .printNode(ts.EmitHint.Unspecified, statement, dts)
            .replace(/^export /, "")
            .replace(/^declare /, ""),
        )
        .join("\n");
      const section = referenceSection(exported.name, target, checker, alias + declaration);
      return { name: exported.name, line: alias + text, section };
    });
    lines.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const header = `// ${entry.name}: the public API, one line per export. Regenerate: npm run api:update`;
    reports.set(entry.name, [header, ...lines.map((l) => l.line), ""].join("\n"));
    const moduleDoc = /^\/\*\*[\s\S]*?\*\//.exec(file.text)?.[0];
    // GitHub's heading anchors: lower case, and a repeated one gets `-1`.
    const anchors = new Map<string, number>();
    const anchor = (name: string) => {
      const slug = name.toLowerCase();
      const seen = anchors.get(slug) ?? 0;
      anchors.set(slug, seen + 1);
      return seen === 0 ? slug : `${slug}-${seen}`;
    };
    references.set(
      entry.name,
      [
        `# ${entry.name}`,
        "",
        "<!-- Generated from the TSDoc comments by npm run api:update; do not edit. -->",
        "",
        moduleDoc
          ? `${docText(moduleDoc)
              .replace(/^@example$/m, "Example:\n")
              .replace(/\n*@module$/, "")}\n`
          : "",
        `Exports: ${lines.map((l) => `[\`${l.name}\`](#${anchor(l.name)})`).join(", ")}.`,
        "",
        ...lines.map((l) => l.section),
      ].join("\n"),
    );
  }
  return { reports, references };
}

/** The reference's path for an entry: `toolwire/agent` is docs/api/toolwire-agent.md. */
export function referencePath(entry: Entry): string {
  return `docs/api/${entry.name.replaceAll("/", "-")}.md`;
}

/** The index of the API reference (docs/api/README.md), from each entry's first doc line. */
export function referenceIndex(references: Map<string, string>): string {
  const rows = apiEntries().map((entry) => {
    // The module comment's first sentence, without the entry's name in front.
    const text = (references.get(entry.name) ?? "").split("\n").slice(4).join("\n");
    const paragraph = text.split("\n\n")[0]?.replaceAll("\n", " ") ?? "";
    const summary = (/^.*?\.(?= |$)/.exec(paragraph)?.[0] ?? paragraph).replace(/^\S+ — /, "");
    return `- [\`${entry.name}\`](${entry.name.replaceAll("/", "-")}.md): ${summary}`;
  });
  return [
    "# API reference",
    "",
    "<!-- Generated from the TSDoc comments by npm run api:update; do not edit. -->",
    "",
    "Every export of every entry, with its declaration and its TSDoc comment. The guides in",
    "[docs/](../) explain how the pieces fit; [the README](../../README.md) starts from scratch.",
    "",
    ...rows,
    "",
  ].join("\n");
}

/** Reads the checked-in report of each entry (undefined when missing). */
export function checkedInReports(): Map<string, string | undefined> {
  return new Map(apiEntries().map((entry) => [entry.name, ts.sys.readFile(root + entry.report)]));
}

/** Reads the checked-in API reference of each entry, and the index (undefined when missing). */
export function checkedInReferences(): Map<string, string | undefined> {
  const read = (path: string) => ts.sys.readFile(root + path);
  return new Map([
    ...apiEntries().map((entry) => [entry.name, read(referencePath(entry))] as const),
    ["index", read("docs/api/README.md")] as const,
  ]);
}
