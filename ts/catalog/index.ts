// The model catalog: every model's context window, output limit and prices (the models.dev
// catalog, derived into the core), the one resolver from any model id to its entry, and the
// registration of a caller's own models and catalogs.
export {
  ModelRegistry,
  defaultModelRegistry,
  resolveModel,
  registerModel,
  registerCatalog,
  listModels,
  catalogSource,
  type ModelRegistration,
  type ModelsDevCatalog,
  type UnknownModelPolicy,
} from "./model-registry.js";
export type { ModelEntry, ResolvedModel, ModelPrices, ModelSource, ModelMatch } from "./model-entry.js";
export type { ModelConfig } from "./model-config.js";
