// The textarea shares the input's look; it lives beside it in input.tsx.
export { Textarea } from "./input";
