import{a}from"./chunk-GG2H52WN.js";import"./chunk-E4PU34WH.js";import"./chunk-XGWGEZEQ.js";export{a as Usage};
