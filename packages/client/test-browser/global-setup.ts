// placeholder until @fdxkit/mock lands
export default function setup() {}
