// pgdisk inspect dump against pageinspect and COPY on every page and value of the tiny sample.
import { differentialSuite } from "./differential.js";
import { tinySampleCopy } from "../fixtures/sample.js";

differentialSuite(tinySampleCopy, { db: "pgdisk_sample", minHeapItems: 5000, minBtreeItems: 5000, minRows: 10000, minToasted: 20, ams: ["btree", "hash", "gist", "gin", "spgist", "brin"] });
