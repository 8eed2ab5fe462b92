import { measure, toolwireCases } from "/work/main/bench/bundle-size.ts";
for (const c of toolwireCases) console.log(c.name.slice(0,50).padEnd(52), (await measure(c)).gzip, (await measure(c, "browser", false)).gzip, c.budget, c.singleFileBudget);
