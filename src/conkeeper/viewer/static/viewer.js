// ConKeeper viewer: expand an observation in place by loading its full record once.
document.addEventListener("toggle", (event) => {
  const details = event.target;
  if (!(details instanceof HTMLDetailsElement) || !details.open || details.dataset.loaded) return;
  const src = details.dataset.src;
  if (!src) return;
  details.dataset.loaded = "1";
  fetch(src, { credentials: "same-origin" })
    .then((response) => (response.ok ? response.text() : Promise.reject(response.status)))
    .then((html) => {
      const target = details.querySelector(".full");
      const doc = new DOMParser().parseFromString(html, "text/html");
      target.replaceChildren(...doc.body.childNodes);
    })
    .catch(() => { delete details.dataset.loaded; });
}, true);
