import { analyzeText, analyzeQuery } from "@engram/retrieval";
for (const t of process.argv.slice(2)) console.log(t, "=>", analyzeText(t).join(" "), "|", JSON.stringify(analyzeQuery(t)));
