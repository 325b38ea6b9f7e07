"""The learned article-link model of the catalogue stage (newscrawl.discovery.link_model) on small
listing pages, and the shipped model file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from newscrawl.discovery.links import score_links

ROOT = Path(__file__).resolve().parents[1]
BLOG = "https://blog.example.org/"
DOMAINS = ["example.org"]

SLUGS = [
    "council-approves-the-new-budget-after-a-long-debate", "storm-leaves-thousands-without-power-overnight",
    "local-team-wins-the-cup-final-in-extra-time", "new-library-opens-its-doors-to-readers",
    "rail-strike-called-off-after-late-night-talks", "bakery-on-main-street-wins-a-national-award",
]


def blog_page() -> str:
    posts = "".join(
        f'<article class="post"><h2 class="entry-title"><a href="/2024/05/{10 + i}/{slug}/">'
        f'{slug.replace("-", " ").capitalize()}</a></h2><p>Posted by the desk. A few lines of teaser text '
        f'about the story follow here.</p><a href="/2024/05/{10 + i}/{slug}/#comments">{i} comments</a> '
        f'<a href="/2024/05/{10 + i}/{slug}/?replytocom={100 + i}">Reply</a></article>'
        for i, slug in enumerate(SLUGS))
    sections = "".join(f'<li><a href="/{name}/">{name.capitalize()} news from every corner of the region</a></li>'
                       for name in ("world", "politics", "business", "sport", "culture"))
    return f"""<html><body>
<header><nav class="menu"><a href="/">Home</a><a href="/category/news/">News</a>
<a href="/2024/05/09/the-week-in-pictures-and-more-from-our-photographers/">The week in pictures</a></nav></header>
<div class="sections"><ul>{sections}</ul></div>
<main>{posts}</main>
<div class="pagination"><a href="/page/2/">2</a><a href="/page/3/">3</a><a href="/page/2/">Older posts</a></div>
<footer><a href="/privacy-policy/">Privacy policy</a><a href="/terms-of-use/">Terms of use</a>
<a href="/contact/">Contact</a></footer>
</body></html>"""


def test_headlines_of_the_repeated_block_are_taken_menus_sections_and_variants_are_not():
    scores = score_links(blog_page(), BLOG, DOMAINS)
    expected = [f"{BLOG}2024/05/{10 + i}/{slug}/" for i, slug in enumerate(SLUGS)]
    assert [link.url for link in scores.accepted] == expected
    assert scores.accepted[0].title == "Council approves the new budget after a long debate"
    rejected = scores.rejected
    assert rejected[f"{BLOG}2024/05/10/{SLUGS[0]}/?replytocom=100"] == "url_variant"
    assert rejected[f"{BLOG}2024/05/09/the-week-in-pictures-and-more-from-our-photographers/"] == "navigation"
    for path in ("world/", "sport/", "page/2/", "privacy-policy/", "terms-of-use/", "contact/"):
        assert f"{BLOG}{path}" in rejected, path  # sections, pagination, footer
    assert rejected[f"{BLOG}category/news/"] == "not_article_path"


def wordpress_page() -> str:
    posts = "".join(f'<li class="post"><a href="/?p={1500 + i}">{title}</a></li>' for i, title in enumerate([
        "Council approves the new budget after a long debate", "Storm leaves thousands without power",
        "Local team wins the cup final in extra time", "New library opens its doors to readers",
        "Rail strike called off after late night talks"]))
    archives = "".join(f'<li><a href="/?m=2024{month:02d}">May {month} 2024</a></li>' for month in range(1, 6))
    categories = "".join(f'<li><a href="/?cat={n}">Category {n}</a></li>' for n in range(1, 6))
    return (f'<html><body><ul class="posts">{posts}</ul><aside><ul class="archives">{archives}</ul>'
            f'<ul class="categories">{categories}</ul></aside></body></html>')


def test_wordpress_default_permalinks_are_posts_not_the_site_root():
    scores = score_links(wordpress_page(), BLOG, DOMAINS)
    assert [link.url for link in scores.accepted] == [f"{BLOG}?p={1500 + i}" for i in range(5)]
    assert all(f"{BLOG}?cat={n}" in scores.rejected for n in range(1, 6))
    assert all(f"{BLOG}?m=2024{month:02d}" in scores.rejected for month in range(1, 6))


def test_the_shipped_model_loads_in_a_clean_process():
    env = {k: v for k, v in os.environ.items() if k != "NEWSCRAWL_MODEL_DIR"}
    code = (
        "import json, sys\n"
        "from newscrawl.discovery.link_model import FEATURES, load_model\n"
        "from newscrawl.discovery.links import score_links\n"
        "model = load_model()\n"
        "page = sys.stdin.read()\n"
        "urls = [link.url for link in score_links(page, 'https://blog.example.org/', ['example.org']).accepted]\n"
        "print(json.dumps({'features': len(model['coef']) == len(FEATURES), 'urls': urls}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], input=blog_page(), capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["features"] and len(result["urls"]) == len(SLUGS)
    manifest = json.loads((ROOT / "data" / "models" / "links-manifest.json").read_text())
    assert manifest["training_set"] == "catalogue-more"
    assert manifest["scores"]["out of fold"]["pooled"]["F1"] > 0.9
