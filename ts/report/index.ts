// The session report: a session's log drawn as one self-contained HTML page (docs/report.md).
export {
  analyzeSession,
  REPORT_COMPONENTS,
  type CompactionUnit,
  type ReportCompaction,
  type ReportComponent,
  type ReportOptions,
  type ReportProblem,
  type ReportRequest,
  type SessionAnalysis,
} from "./session-analysis.js";
export { renderReport, renderAnalysis } from "./render-report.js";
export { escapeHtml } from "./html.js";
