// The exports, checked with the consumers' own published validators:
// @mentra/sdk's validateAppConfig, the MCP TypeScript SDK's zod schema for a
// tools/list result, and Ajv for every JSON Schema the LLM formats carry.
// It reads the files the Rust tests compare the renderer with byte for byte
// (tests/fixtures/*/), and one live export from the API.
import { test, expect } from "@playwright/test";
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv from "ajv";
import { validateAppConfig } from "@mentra/sdk";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { signUp } from "../fixtures/accounts";
import { createTodoApp } from "../fixtures/apps";

const fixtures = path.resolve(__dirname, "../../tests/fixtures");
const sets = ["todo_app", "rich_app"];

function load(set: string, name: string) {
  return JSON.parse(fs.readFileSync(path.join(fixtures, set, name), "utf8"));
}

function expectValidJsonSchema(schema: unknown, where: string) {
  const ajv = new Ajv({ strict: true });
  expect(ajv.validateSchema(schema as object), `${where}: ${ajv.errorsText()}`).toBe(true);
  ajv.compile(schema as object); // throws on anything Ajv cannot use
}

const TOOL_PARAM_TYPES = ["string", "number", "boolean"];

function expectMentraTools(tools: any[], where: string) {
  for (const tool of tools) {
    expect(typeof tool.id, where).toBe("string");
    expect(typeof tool.description, where).toBe("string");
    if ("activationPhrases" in tool) expect(Array.isArray(tool.activationPhrases)).toBe(true);
    for (const [name, param] of Object.entries<any>(tool.parameters ?? {})) {
      expect(TOOL_PARAM_TYPES, `${where} ${tool.id}.${name}`).toContain(param.type);
      expect(typeof param.description).toBe("string");
      if ("enum" in param) expect(param.type).toBe("string");
      if ("required" in param) expect(param.required).toBe(true);
    }
  }
}

test.describe("exports against the consumers' validators @js-only", () => {
  // Tagged @js-only so that it runs once, in the hydrated project.

  for (const set of sets) {
    test(`${set}: Mentra app_config.json passes @mentra/sdk validateAppConfig`, () => {
      const config = load(set, "mentra.json");
      expect(validateAppConfig(config)).toBe(true);
      expectMentraTools(config.tools, `${set}/mentra`);
      const tpa = load(set, "tpa.json");
      expectMentraTools(tpa.tools, `${set}/tpa`);
      // tpa_config.json is the legacy shape: validateAppConfig wants `settings`.
      expect(validateAppConfig({ ...tpa, settings: [] })).toBe(true);
    });

    test(`${set}: MCP parses as a tools/list result and its schemas are valid`, () => {
      const mcp = load(set, "mcp.json");
      const parsed = ListToolsResultSchema.safeParse(mcp);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      for (const tool of mcp.tools) expectValidJsonSchema(tool.inputSchema, `${set}/mcp ${tool.name}`);
    });

    test(`${set}: OpenAI, Anthropic and Tambo carry valid JSON Schema`, () => {
      for (const entry of load(set, "openai.json")) {
        expect(entry.type).toBe("function");
        expectValidJsonSchema(entry.function.parameters, `${set}/openai ${entry.function.name}`);
      }
      for (const entry of load(set, "anthropic.json")) {
        expectValidJsonSchema(entry.input_schema, `${set}/anthropic ${entry.name}`);
      }
      for (const entry of load(set, "tambo.json")) {
        expectValidJsonSchema(entry.inputSchema, `${set}/tambo ${entry.name}`);
        expectValidJsonSchema(entry.outputSchema, `${set}/tambo ${entry.name} output`);
      }
    });

    test(`${set}: Gemini uses only Gemini's type names`, () => {
      const gemini = load(set, "gemini.json");
      for (const declaration of gemini.functionDeclarations) {
        if (!declaration.parameters) continue;
        expect(declaration.parameters.type).toBe("OBJECT");
        expect(Object.keys(declaration.parameters.properties).length).toBeGreaterThan(0);
        for (const property of Object.values<any>(declaration.parameters.properties)) {
          expect(["STRING", "NUMBER", "BOOLEAN"]).toContain(property.type);
        }
      }
    });
  }

  test("strict OpenAI follows OpenAI's strict-mode rules", () => {
    for (const entry of load("todo_app", "openai.strict.json")) {
      const parameters = entry.function.parameters;
      expect(entry.function.strict).toBe(true);
      expect(parameters.additionalProperties).toBe(false);
      expect([...parameters.required].sort()).toEqual(Object.keys(parameters.properties).sort());
      expectValidJsonSchema(parameters, entry.function.name);
    }
  });

  test("a live export from the API passes the same validators", async ({ page }) => {
    await signUp(page);
    const packageName = await createTodoApp(page);
    for (const format of ["mentra", "mcp"]) {
      const answer = await page.request.get(`/console/apps/${packageName}/export/download?format=${format}`);
      expect(answer.status()).toBe(200);
      const body = await answer.json();
      if (format === "mentra") expect(validateAppConfig(body)).toBe(true);
      else expect(ListToolsResultSchema.safeParse(body).success).toBe(true);
    }
  });
});
