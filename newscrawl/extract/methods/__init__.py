"""The body extraction methods, one module per paper.

=====================  ==========================================================  ==============
module                 paper                                                        method name
=====================  ==========================================================  ==============
:mod:`.cevc`           Wang, Fang, Yu, Ma (2020), *A Content Extraction Method for    ``cevc``
                       Web News and Blogs* (count of valid characters)
:mod:`.decay`          Chen, Chen, Wu (2012), *Web page body extraction based on      ``decay``
                       information-decay amplitude*
:mod:`.template`       Yan, Wang (2020), *A web page cleaning method based on         ``template``
                       template and SVM* (per-site templates + block SVM)
:mod:`.classifier`     Kazennikov, Soloviev, *Extracting a structured news message    ``classifier``
                       from web pages using RSS* (RSS-feature node classifier)
:mod:`.auto`           the combination: rules over the element tree drawing on the    ``auto-rules``
                       papers above
:mod:`.auto_learned`   ``auto-rules`` plus the classifier's learned edge veto         ``auto``
                       and the learned article end (:mod:`.article_end`)
=====================  ==========================================================  ==============

Each method is a function ``extract_body(page, **params) -> Body``; titles, dates and
authors are found in :mod:`newscrawl.extract.fields`.
"""
