// Tailwind CSS 4 through its PostCSS plugin (Next.js reads this file from the project root).
const config = {
  plugins: { "@tailwindcss/postcss": {} },
};

export default config;
