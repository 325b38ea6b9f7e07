# ruff: noqa: E501  (prose and HTML template lines; CJK text counts double width)
"""English articles of the demo site (Harbor City Herald). Original text written for newscrawl's demo.

Same body markup as articles_zh.py. Times are America/New_York (EST, -05:00 in November).
"""

SPLIT = "<<split>>"

ARTICLES_EN = [
    {
        "path": "/en/world/2026-11-19/harbor-bridge-reopens.html",
        "section": "world",
        "encoding": "utf-8",
        "title": "Harbor Bridge reopens to traffic after eight months of repairs",
        "subtitle": "Freight trucks return to the crossing, but car tolls will rise by a dollar in January",
        "listing_title": "Harbor Bridge reopens after repairs",
        "feed_title": "Harbor Bridge reopens to traffic after eight months of repairs",
        "author": "Maria Delgado",
        "published": "2026-11-19T07:45:00-05:00",
        "modified": "2026-11-19T11:02:00-05:00",
        "meta_time": True,
        "meta_time_utc": True,
        "json_ld": False,
        "description": "The only road crossing between the port district and the northern suburbs is open "
                       "again, three weeks ahead of schedule.",
        "body": [
            "The Harbor Bridge, the only road crossing between the port district and the northern suburbs, "
            "reopened to all traffic early Thursday after eight months of structural repairs that forced "
            "commuters onto ferries and a congested detour through the river tunnel.",
            "Crews replaced 46 corroded steel hangers, resurfaced the full length of the deck and installed new "
            "expansion joints at both ends of the 1.2-kilometer span. The work finished about three weeks ahead "
            "of schedule, according to the regional transport authority, which said the final bill of "
            "$212 million came in slightly under budget.",
            "“We asked a lot of people to be patient this year,” said Ellen Park, the authority’s chief "
            "engineer, standing at the toll plaza as the first freight trucks rolled across shortly after "
            "5 a.m. “The bridge is now good for another forty years if we look after it.”",
            "Tolls for passenger cars will rise by one dollar in January, the first increase since 2019. "
            "Officials said the extra revenue would pay for a permanent inspection program using sensors "
            "mounted beneath the deck.",
            "Ferry operators, who added extra sailings during the closure, said they would return to their "
            "normal winter timetable next week.",
        ],
        "comments": [
            ("ferrycommuter", "Eight months of the 6:40 boat. I will not miss it."),
            ("JHalloran", "Three weeks early and under budget? Somebody frame that press release."),
            ("northside_dad", "A dollar more for the toll is fine if they actually keep inspecting it."),
        ],
    },
    {
        "path": "/en/world/2026-11-18/coastal-states-fisheries-deal.html",
        "section": "world",
        "encoding": "utf-8",
        "title": "Coastal states agree on shared winter quota for cod fishery",
        "listing_title": "Coastal states agree on shared cod quota",
        "author": "Tom Ashworth",
        "published": "2026-11-18T10:20:00-08:00",  # filed from the Pacific bureau: "10:20 a.m. PST"
        "meta_time": False,
        "json_ld": False,
        "description": "Ministers cut the winter cod catch by 9 percent and allow unused quota to be traded.",
        "body": [
            "Fisheries ministers from four coastal states agreed late Tuesday on a shared catch limit for the "
            "winter cod season, ending a dispute that had kept fleets in port for nearly two weeks.",
            "Under the deal, the total allowable catch will fall by 9 percent compared with last winter, in line "
            "with scientific advice that spawning stocks remain below their long-term average. Each state will "
            "keep its traditional share, but unused quota can now be traded between fleets before the end of "
            "February.",
            "Fishing associations gave the agreement a cautious welcome. Many skippers had warned that another "
            "week without a deal would push smaller boats into debt before Christmas.",
            "Environmental groups said the cut did not go far enough and urged the ministers to set up closed "
            "areas around known spawning grounds. The ministers said they would review the measures in March, "
            "when new survey data is due.",
        ],
        "comments": [
            ("skipper_ann", "Two weeks tied up at the dock cost us more than the quota cut will."),
            ("marinebio42", "Nine percent is a start. Closed areas would have been better."),
        ],
    },
    {
        "path": "/en/world/2026-11-16/river-delta-flood-relief.html",
        "section": "world",
        "encoding": "utf-8",
        "title": "Aid convoys reach flooded villages in the river delta",
        "listing_title": "Aid convoys reach flooded delta villages",
        "author": "Priya Nair and Sarah E. Lindqvist",  # the byline as shown
        "authors": ["Priya Nair", "Sarah E. Lindqvist"],
        "published": "2026-11-16T18:05:00-05:00",
        "meta_time": False,
        "json_ld": True,
        "description": "Road convoys carrying food, water and medicine arrived six days after embankments burst.",
        "body": [
            "The first road convoys carrying food, drinking water and medical supplies reached villages in the "
            "lower river delta on Monday, six days after record rainfall burst embankments and cut off an area "
            "home to about 80,000 people.",
            "Relief agencies had relied on boats and a small number of helicopters to reach the worst-hit "
            "communities. The convoys, organized by the regional government with help from volunteer drivers, "
            "were able to travel once water levels on the main delta highway fell below half a meter.",
            "Doctors traveling with the trucks said their main concern was now waterborne disease. Mobile clinics "
            "have been set up in three school buildings, and health workers are distributing water purification "
            "tablets door to door.",
            SPLIT,
            "Farmers in the delta fear that much of the late rice harvest has been lost. “The fields were ready "
            "to cut,” said one grower in the village of Lenmar, who has moved his family to a relative’s house "
            "on higher ground. “Now everything is under the water.”",
            "Forecasters expect dry weather for the rest of the week, which should allow water to drain further. "
            "Engineers will then begin assessing the damaged embankments, a process officials warned could take "
            "months.",
        ],
        "comments": [
            ("R. Okonjo", "Where can we donate? A link would help."),
            ("deltagirl", "My grandmother’s village is still only reachable by boat."),
        ],
    },
    {
        "path": "/en/local/2026-11-20/council-approves-bike-lanes.html",
        "section": "local",
        "encoding": "utf-8",
        "title": "City council approves protected bike lanes on Mill Street",
        "listing_title": "Council approves Mill Street bike lanes",
        "feed_title": "City council approves protected bike lanes on Mill Street",
        "author": "Daniel Okafor",
        "published": "2026-11-20T09:10:00-05:00",
        "meta_time": True,
        "json_ld": False,
        "description": "The 7–2 vote ends more than a year of debate over the east side’s busiest street.",
        "body": [
            "The city council voted 7–2 on Thursday night to build protected bike lanes along the full length of "
            "Mill Street, the busiest commercial corridor on the east side, after more than a year of public "
            "meetings.",
            "The lanes will be separated from traffic by concrete curbs and will replace about 140 of the "
            "street’s 310 parking spaces. To make up for the loss, the city will open a public lot on the former "
            "bus depot site and extend loading hours for delivery vehicles.",
            "Council member Rosa Jimenez, who sponsored the measure, said crash data made the case. “Mill Street "
            "has had more cycling injuries in the past five years than any other street in the city,” she said. "
            "“We are not going to fix that with paint.”",
            "Some business owners remain opposed. The Mill Street Merchants Association said in a "
            "[statement on its website](https://example.org/mill-street-merchants/statement) that the loss of "
            "parking would hurt shops that are still recovering from detour traffic during the "
            "[Harbor Bridge closure](/en/world/2026-11-19/harbor-bridge-reopens.html).",
            "Construction is expected to begin in April and finish before the end of the summer.",
        ],
        "comments": [
            ("millst_baker", "We will lose the two spaces in front of the shop. Not thrilled."),
            ("cyclist_jo", "Finally. I was doored on Mill Street last spring."),
            ("K. Varga", "Curbs, not paint. Good call."),
        ],
    },
    {
        "path": "/en/local/2026-11-17/library-late-fees.html",
        "section": "local",
        "encoding": "utf-8",
        "title": "Public library ends late fees for all borrowers",
        "feed_title": "Library ends late fees",
        "author": "Helen Marsh",
        "published": "2026-11-17T11:30:00-05:00",
        "meta_time": False,
        "json_ld": False,
        "description": "Existing fines will be cleared on December 1.",
        "body": [
            "The Harbor City Public Library will stop charging late fees on books, films and other materials from "
            "December 1, the library board decided on Monday. Existing fines will be cleared from all accounts on "
            "the same day. Library director Janet Cole said fines brought in less than one percent of the annual "
            "budget but kept many families, especially those with young children, from using the library at all. "
            "Borrowers will still be asked to pay for items that are lost or damaged, and accounts with materials "
            "more than six weeks overdue will be paused until the items are returned.",
        ],
        "comments": [
            ("bookworm_88", "I owe $4.20 from 2023. Free at last."),
            ("T. Lindqvist", "Good decision. Fines never got the books back faster anyway."),
        ],
    },
    {
        "path": "/en/science/2026-11-18/glacier-sediment-study.html",
        "section": "science",
        "encoding": "utf-8",
        "title": "Retreating glaciers are sending more sediment into mountain rivers, study finds",
        "listing_title": "Glaciers sending more sediment into rivers",
        "author": "Grace Lin",
        "published": "2026-11-18T15:20:00-05:00",
        "meta_time": True,
        "json_ld": True,
        "description": "Sediment loads at most of 38 gauging stations have roughly doubled since the early 2000s.",
        "body": [
            "Rivers fed by retreating glaciers are carrying far more sand and silt than they did two decades ago, "
            "according to a study published this week, a change that could shorten the life of reservoirs and "
            "alter habitats for fish downstream.",
            "The research team, led by hydrologists at the state university, combined satellite images with "
            "sediment measurements from 38 river gauging stations in the northern ranges. At most of the sites, "
            "the amount of sediment moving downstream during the summer melt season had roughly doubled since "
            "the early 2000s.",
            "As glaciers shrink, they expose large areas of loose rock and gravel that were previously covered by "
            "ice. Meltwater and summer storms then wash this material into the rivers.",
            {"quote": "“We tend to think of glacier loss as a question of how much water we will have,” said "
                      "Dr. Anna Reyes, the study’s lead author. “But the rivers are also moving the mountains "
                      "downhill faster, and that sediment has to end up somewhere.”"},
            "Operators of two hydroelectric dams in the region have already reported faster-than-expected filling "
            "of their reservoirs. The authors recommend that sediment monitoring be added to long-term water "
            "planning.",
        ],
        "comments": [
            ("hydro_eng", "We have seen this at our intake screens for years. Nice to have numbers."),
            ("m.ferreira", "“Moving the mountains downhill faster” is a great line."),
            ("trout_fisher", "Explains the muddy water in August."),
        ],
    },
    {
        "path": "/en/science/2026-11-15/comet-visible.html",
        "section": "science",
        "encoding": "utf-8",
        "title": "Newly found comet may be visible to the naked eye next week",
        "feed_title": "Comet may be visible to the naked eye next week",
        "author": "Grace Lin",
        "published": "2026-11-15T20:00:00-05:00",
        "meta_time": False,
        "json_ld": False,
        "description": "Look low in the western sky after sunset between November 22 and 26.",
        "body": [
            "A comet discovered only in September is brightening faster than expected and could be visible "
            "without binoculars from dark locations next week, astronomers at the Harbor City Observatory said "
            "on Sunday.",
            "The comet will be best seen low in the western sky about an hour after sunset between November 22 "
            "and November 26. Observers should look for a faint, fuzzy patch of light with a short tail pointing "
            "away from the sun.",
            "Comet brightness is notoriously hard to predict, and observatory staff cautioned that it could fade "
            "as quickly as it has brightened. The observatory will open its rooftop terrace to the public on the "
            "evenings of November 23 and 24, weather permitting.",
        ],
        "comments": [
            ("stargazer_liz", "Clouds forecast all week, of course."),
            ("P. Amundsen", "Will the terrace need tickets?"),
        ],
    },
    {
        "path": "/en/sport/2026-11-19/rowing-club-wins-regatta.html",
        "section": "sport",
        "encoding": "utf-8",
        "title": "Harbor City rowing club wins its first national title in 30 years",
        "listing_title": "Rowing club wins first national title in 30 years",
        "author": "Sam Whitaker",
        "published": "2026-11-19T17:40:00-05:00",
        "meta_time": True,
        "json_ld": False,
        "description": "The men’s eight won by just over half a length in 5 minutes 41 seconds.",
        "body": [
            "The Harbor City Rowing Club won the men’s eights final at the national championships on Wednesday, "
            "ending a 30-year wait for a title at the country’s top regatta.",
            "The crew, coached by former Olympian Marta Kowal, led from the start and held off a late push from "
            "the defending champions to win by just over half a length in 5 minutes 41 seconds.",
            "Five of the nine crew members, including the cox, joined the club through its junior program, which "
            "offers free coaching to students at public high schools in the city.",
            "“Most of these guys learned to row on this river when they were fifteen,” Kowal said. “To see them "
            "win like this is what the club is about.”",
            "The club will hold a public reception at its boathouse on Sunday afternoon.",
        ],
        "comments": [
            ("oldoar", "Rowed for the club in the 90s. Never thought I would see this. Congratulations!"),
            ("hs_coach_ben", "Three of them came through our school program. Proud day."),
        ],
    },
    {
        "path": "/en/sport/2026-11-14/stadium-roof-vote.html",
        "section": "sport",
        "encoding": "utf-8",
        "title": "Voters to decide on retractable roof for Bayside Stadium",
        "feed_title": "Bayside Stadium roof goes to voters",
        "author": "Sam Whitaker",
        "published": "2026-11-14T10:00:00-05:00",
        "meta_time": False,
        "json_ld": True,
        "description": "An $85 million bond for a retractable roof will be on the March ballot.",
        "body": [
            "Harbor City residents will vote in March on whether to borrow $85 million to fit Bayside Stadium "
            "with a retractable roof, after the county board agreed on Friday to put the question on the ballot.",
            "Supporters say the roof would allow the stadium to host concerts and trade shows year-round and would "
            "protect the city’s professional soccer team from frequent rain delays. A study commissioned by the "
            "county estimated that the roof would bring an extra 40 events a year.",
            "Opponents argue that the money would be better spent on public pools and sports fields in "
            "neighborhoods that have not seen new facilities in decades. A coalition of parents’ groups has "
            "started a campaign against the bond.",
            "If approved, construction would take about two years and the stadium would stay open during most of "
            "the work.",
        ],
        "comments": [
            ("season_ticket_sue", "Sat through four rain delays this year. Yes, please."),
            ("pool_mom", "Our neighborhood pool has been closed since 2022."),
            ("D. Ruiz", "Show me the operating costs before I vote for anything."),
        ],
    },
    {
        "path": "/en/tech/2026-11-20/open-source-router-firmware.html",
        "section": "tech",
        "encoding": "utf-8",
        "title": "Open-source router firmware adds support for Wi-Fi 7 devices",
        "api_title": "Router firmware adds Wi-Fi 7 support",
        "author": "Peter Novak",
        "published": "2026-11-20T12:00:00-05:00",
        "meta_time": True,
        "json_ld": False,
        "description": "The new release also brings a redesigned setup interface and security fixes.",
        "body": [
            "The volunteer project behind one of the most widely used open-source router firmware packages "
            "released a major new version on Thursday, adding support for the first batch of Wi-Fi 7 home routers.",
            "The release supports routers built on two popular chipsets and brings a redesigned web interface for "
            "setting up guest networks and parental controls. The developers said it also fixes several security "
            "problems that affected older versions.",
            "Open-source firmware allows owners to keep receiving updates after manufacturers stop supporting "
            "their devices. Project maintainers said many users install it on routers that are more than five "
            "years old.",
            "The maintainers warned that installing third-party firmware can void a device’s warranty and "
            "recommended that users read the compatibility list before upgrading.",
        ],
        "comments": [
            ("netadmin_kim", "Running it on a 2018 router. Still going strong."),
            ("ohm_sweet_ohm", "Any word on mesh support?"),
        ],
    },
    {
        "path": "/en/tech/2026-11-18/battery-recycling-startup.html",
        "section": "tech",
        "encoding": "utf-8",
        "title": "Battery recycling startup opens plant in former paper mill",
        "api_title": "Battery recycler opens plant in old paper mill",
        "author": "Peter Novak",
        "published": "2026-11-18T08:30:00-05:00",
        "meta_time": False,
        "json_ld": True,
        "description": "Greyline Materials brings 120 jobs to the north bank of the river.",
        "body": [
            "A startup that recovers lithium, nickel and cobalt from used batteries opened its first commercial "
            "plant on Tuesday in a former paper mill on the north bank of the river, bringing 120 jobs to a site "
            "that has stood empty for more than a decade.",
            "The company, Greyline Materials, says the plant can process up to 10,000 tonnes of batteries and "
            "production scrap a year. Instead of melting the batteries at high temperatures, it uses a chemical "
            "process that the company says consumes less energy.",
            "Local officials hope the plant will attract other clean-technology businesses to the riverside "
            "industrial zone. The state provided a $6 million grant to clean up the old mill site.",
            "Greyline said most of its supply will come from electric-vehicle makers and electronics "
            "manufacturers, which increasingly face rules requiring them to recycle used batteries.",
        ],
        "comments": [
            ("millworker_son", "My dad worked in that mill for 25 years. Good to see lights on again."),
            ("chem_phd", "Hydrometallurgy at that scale is not easy. Curious about their recovery rates."),
            ("eastbank", "What about truck traffic on River Road?"),
        ],
    },
    {
        "path": "/en/tech/2026-11-13/city-app-outage.html",
        "section": "tech",
        "encoding": "utf-8",
        "title": "City services app restored after day-long outage",
        "api_title": "City app back online after outage",
        "author": "Helen Marsh",
        "published": "2026-11-13T19:25:00-05:00",
        "meta_time": False,
        "json_ld": False,
        "description": "An expired security certificate took down logins for almost 24 hours.",
        "body": [
            "The city’s services app, used by residents to pay parking fines, report potholes and book recycling "
            "pickups, was restored on Friday evening after an outage that lasted almost 24 hours.",
            "The city’s technology office said the failure was caused by an expired security certificate on a "
            "server that handles logins. While the app was down, residents could still use the city website and "
            "phone hotline.",
            "The office said it would take several steps to avoid a repeat:",
            {"ul": [
                "Automatic alerts will warn staff 30 days before any certificate expires.",
                "A second login server will be added in a different data center.",
                "The app will show a clear status message during outages instead of a generic error.",
            ]},
            "Parking fines that fell due during the outage will not incur late penalties.",
        ],
        "comments": [
            ("sysadmin_sam", "Expired certificate. It is always the certificate."),
            ("potholehunter", "Reported the same pothole three times because of this."),
        ],
    },
]
