// The search box of a host's list page (progressive enhancement: without this script the page is a
// complete paged list). On first use it fetches the host's search.json, a manifest naming its
// shards (one per page of the list, each named by its hash), and the shards; as one types or picks a
// category or coder, shows the matching packages in place of the paged list, each with its icon as
// the lists show it. Manifest text only ever reaches the page as textContent, never as markup.
const MAX_SHOWN = 100;
// The icon of a package without files: the site's placeholder, beside this script.
const PLACEHOLDER = new URL("placeholder.svg", import.meta.url).href;

const form = document.querySelector("form.search");
if (form) enhance(form);

function enhance(form) {
  const input = form.querySelector("#q");
  const category = form.querySelector("#category");
  const coder = form.querySelector("#coder");
  const status = form.querySelector("#search-status");
  const section = document.getElementById("results-section");
  const list = document.getElementById("results-list");
  const all = document.getElementById("all");
  const indexUrl = new URL(form.dataset.index, document.baseURI);
  // Pages of the host are linked from its folder, where search.json is.
  const hostUrl = new URL(".", indexUrl);
  let index;
  let loading;

  form.hidden = false;
  form.addEventListener("submit", (event) => event.preventDefault());
  // The index is fetched on first use, so the list page itself stays light.
  form.addEventListener("focusin", () => load());
  form.addEventListener("pointerdown", () => load());
  for (const control of [input, category, coder]) control.addEventListener("input", () => load().then(update));

  function load() {
    loading ??= fetchJson(indexUrl)
      .then((manifest) =>
        Promise.all(manifest.shards.map((shard) => fetchJson(new URL(shard, indexUrl)))).then((shards) => ({
          ...manifest,
          packages: shards.flat(),
        })),
      )
      .then((data) => {
        index = prepare(data);
        fill(
          category,
          data.categories.map((c, i) => [String(i), c]),
        );
        fill(
          coder,
          data.coders.map(([c], i) => [String(i), c]),
        );
        update();
      })
      .catch(() => {
        status.textContent = "Search is not available right now; the list below is complete.";
      });
    return loading;
  }

  function update() {
    if (!index) return;
    const terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    const wantCategory = category.value === "" ? -1 : Number(category.value);
    const wantCoder = coder.value === "" ? -1 : Number(coder.value);
    if (terms.length === 0 && wantCategory < 0 && wantCoder < 0) {
      section.hidden = true;
      all.hidden = false;
      status.textContent = "";
      return;
    }
    const matches = [];
    for (const entry of index.packages) {
      if (wantCategory >= 0 && entry.category !== wantCategory) continue;
      if (wantCoder >= 0 && entry.coder !== wantCoder) continue;
      if (terms.every((t) => entry.text.includes(t))) matches.push(entry);
    }
    list.replaceChildren(...matches.slice(0, MAX_SHOWN).map((entry) => item(entry, index)));
    status.textContent =
      matches.length === 0
        ? "No package matches."
        : matches.length > MAX_SHOWN
          ? `${matches.length} packages match; the first ${MAX_SHOWN} are shown.`
          : `${matches.length} ${matches.length === 1 ? "package matches" : "packages match"}.`;
    section.hidden = false;
    all.hidden = true;
  }

  function item(entry, index) {
    const li = document.createElement("li");
    li.className = "app";
    // Decorative, as in the lists: the name is beside it.
    const icon = document.createElement("img");
    icon.className = "icon";
    icon.src = entry.icon === undefined ? PLACEHOLDER : new URL(entry.icon, hostUrl).href;
    icon.width = 128;
    icon.height = 48;
    icon.alt = "";
    icon.loading = "lazy";
    const about = document.createElement("div");
    about.className = "about";
    const name = link(`package/${encodeURIComponent(entry.name)}/`, entry.display);
    name.className = "name";
    const id = span("id", entry.name);
    const by = document.createElement("span");
    by.className = "by";
    const [coderName, coderKey] = index.coders[entry.coder];
    by.append(
      "by ",
      link(`coder/${coderKey}/`, coderName),
      " in ",
      link(`category/${encodeURIComponent(index.categories[entry.category])}/`, index.categories[entry.category]),
    );
    about.append(
      name,
      " ",
      id,
      document.createElement("br"),
      span("short", entry.short),
      document.createElement("br"),
      by,
    );
    li.append(icon, about);
    return li;
  }

  function link(path, text) {
    const a = document.createElement("a");
    a.href = new URL(path, hostUrl).href;
    a.textContent = text;
    return a;
  }
}

function fetchJson(url) {
  return fetch(url).then((response) => {
    if (!response.ok) throw new Error(`${response.status}`);
    return response.json();
  });
}

function span(className, text) {
  const s = document.createElement("span");
  s.className = className;
  s.textContent = text;
  return s;
}

function fill(select, options) {
  for (const [value, label] of options) select.append(new Option(label, value));
}

/** Each package with its coder and category as indices into the menus' lists, and its searchable text lowercased once. */
function prepare(data) {
  const coderAt = new Map(data.coders.map(([name], i) => [name, i]));
  const categoryAt = new Map(data.categories.map((name, i) => [name, i]));
  return {
    categories: data.categories,
    coders: data.coders,
    packages: data.packages.map(([name, display, coder, category, short, icon]) => ({
      name,
      display,
      coder: coderAt.get(coder),
      category: categoryAt.get(category),
      short,
      icon,
      text: [name, display, coder, short].join("\n").toLowerCase(),
    })),
  };
}
