// The quickstart demo runs against @fdxkit/mock, which arrives with its own issue.
console.log("fdxkit demo: the sandbox is not built yet — see the README.");
