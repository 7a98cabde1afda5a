// "Test this feed" and "Preview" buttons: post the form they are in to the
// button's URL (data-aitop-url) and show the answer under the button,
// leaving the form as it is.
"use strict";
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-aitop-preview]");
  if (!button || !button.form) {
    return;
  }
  event.preventDefault();
  const target = document.getElementById(button.dataset.aitopTarget);
  target.textContent = button.dataset.aitopWorking || "…";
  button.disabled = true;
  try {
    const response = await fetch(button.dataset.aitopUrl, {
      method: "POST",
      body: new FormData(button.form),
      headers: { "X-Requested-With": "fetch" },
      credentials: "same-origin",
    });
    // The fragment is rendered by our own templates, every value escaped.
    target.innerHTML = await response.text();
    await followProgress(target);
  } catch (error) {
    target.textContent = String(error);
  } finally {
    button.disabled = false;
  }
});

// A queued test of a feed answers with a fragment that names where to ask
// again (data-aitop-poll): ask every second until the result replaces it.
async function followProgress(target) {
  for (let tries = 0; tries < 300; tries += 1) {
    const pending = target.querySelector("[data-aitop-poll]");
    if (!pending) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const response = await fetch(pending.dataset.aitopPoll, {
      headers: { "X-Requested-With": "fetch" },
      credentials: "same-origin",
    });
    target.innerHTML = await response.text();
  }
}
